/**
 * What migration 9 added to a store, written through the service's own
 * accounts, approvals and audit trail, for the `db copy` tests: staff
 * accounts (one limited to a merchant), sign-in throttling, a session and a
 * setup link bound to accounts, approval requests (a pending withdrawal whose
 * sum is held in the ledger, a rejected one whose hold was released, a
 * pending balance adjustment) and the audit entries all of that appended.
 * Also a dump of every copied table, to compare two stores row by row.
 */
import type { Role } from '../../../src-shared/auth/permissions';
import type { MerchantConsoleService } from '../../../src-main/service';
import type { ApprovalParty } from '../../../src-main/services/approval-service';
import { CLI_ACTOR } from '../../../src-main/services/audit-service';
import { COPIED_TABLES } from '../../../src-main/store/copy-store';
import type { Store } from '../../../src-main/store/store';

/** A hash nothing verifies against: these accounts never sign in. */
const NO_SIGN_IN = 'scrypt$16384$8$1$c2FsdA$aGFzaA';

/** Accounts, sessions, approvals with withdrawal holds, audit entries; `merchantId` must have 500.00 available. */
export async function seedTeamRecords(service: MerchantConsoleService, merchantId: number): Promise<void> {
  const { clock, store } = service;
  const { accounts, approvals } = service.services;
  const now = clock.now();
  const { owner, finance } = await store.write(async (tx) => {
    const owner = await accounts.create(tx, CLI_ACTOR, { login: 'olga', display_name: 'Olga (owner)', role: 'owner' }, NO_SIGN_IN);
    const finance = await accounts.create(tx, CLI_ACTOR, { login: 'fang', display_name: 'Fang (finance)', role: 'finance', merchant_ids: [merchantId] }, NO_SIGN_IN);
    await tx.run('INSERT INTO auth_throttle (key, failures, first_failure_at, blocked_until) VALUES (?, ?, ?, ?)', ['login:olga', 3, now - 60, now + 300]);
    await tx.run(
      `INSERT INTO console_sessions (id, secret_hash, created_at, last_seen_at, expires_at, account_id, stage, address, user_agent)
       VALUES (?, ?, ?, ?, ?, ?, 'full', '10.0.0.7', 'Firefox')`,
      ['session-olga', Buffer.from('f00d', 'hex'), now, now, now + 3600, owner.id],
    );
    await tx.run(
      `INSERT INTO console_login_tokens (id, secret_hash, created_at, expires_at, purpose, account_id) VALUES (?, ?, ?, ?, 'setup', ?)`,
      ['setup-fang', Buffer.from('beef', 'hex'), now, now + 3600, finance.id],
    );
    return { owner: owner.id, finance: finance.id };
  });

  const party = (accountId: number, login: string, role: Role, merchantIds: number[] | null): ApprovalParty => ({
    accountId,
    role,
    via: 'console',
    merchantIds,
    platform: merchantIds === null,
    audit: { kind: 'account', accountId, login, role, address: '10.0.0.7', userAgent: 'Firefox' },
  });
  const olga = party(owner, 'olga', 'owner', null);
  const fang = party(finance, 'fang', 'finance', [merchantId]);
  const withdrawal = (fen: number) => ({
    kind: 'withdrawal' as const,
    merchantId,
    payload: { merchant_id: merchantId, input: { order_type: 2, cny_amount: fen }, expected_amount: fen },
    title: `Withdrawal of ${fen} fen`,
    titleParams: { amount: String(fen) },
    changes: [{ key: 'taken_from_available' as const, label: 'taken from available', before: null, after: String(fen) }],
    hold: fen,
  });
  await store.write(async (tx) => {
    await approvals.request(tx, olga, withdrawal(20_000));
    const rejected = await approvals.request(tx, olga, withdrawal(30_000));
    await approvals.reject(tx, fang, rejected.id, 'not this week');
    await approvals.request(tx, fang, {
      kind: 'balance_adjustment',
      merchantId,
      payload: { merchant_id: merchantId, amount: 5_000 },
      title: 'Adjust by 50.00',
      titleParams: { amount: '50.00' },
      changes: [{ key: 'adjustment', label: 'adjustment', before: null, after: '+50.00' }],
    });
  });
}

/**
 * Every copied table's rows, in a fixed order (columns by name: the engines order some differently). Nonces
 * without SQLite's bucket, which the copy derives from their expiry (migration 0012).
 */
export async function dumpTables(store: Store): Promise<Record<string, unknown[]>> {
  return store.read(async (tx) => {
    const out: Record<string, unknown[]> = {};
    for (const table of COPIED_TABLES) {
      const rows = await tx.all<Record<string, unknown>>(table === 'nonces' ? 'SELECT api_key, nonce, expires_at FROM nonces' : `SELECT * FROM ${table}`);
      out[table] = rows.map((r) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)))).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    }
    return out;
  });
}
