/**
 * What migration 9 added to a store, written through the real repositories
 * and services, for the `db copy` tests: staff accounts (one limited to a
 * merchant), sign-in throttling, a session and a setup link bound to
 * accounts, approval requests (a pending withdrawal whose sum is held in the
 * ledger, a rejected one whose hold was released, a pending balance
 * adjustment) and the audit entries all of that appended. Also a dump of
 * every copied table, to compare two stores row by row.
 */
import type { Role } from '../../../src-shared/auth/permissions';
import { createSecretBox } from '../../../src-main/crypto/secret-box';
import { createAccountRepository } from '../../../src-main/repositories/account-repository';
import { createApprovalRepository } from '../../../src-main/repositories/approval-repository';
import { createAuditRepository } from '../../../src-main/repositories/audit-repository';
import { createMerchantRepository } from '../../../src-main/repositories/merchant-repository';
import type { MerchantConsoleService } from '../../../src-main/service';
import { createApprovalService, type ApprovalExecutors, type ApprovalParty } from '../../../src-main/services/approval-service';
import { CLI_ACTOR, createAuditService } from '../../../src-main/services/audit-service';
import { COPIED_TABLES } from '../../../src-main/store/copy-store';
import type { Store } from '../../../src-main/store/store';

const notApprovedHere = async (): Promise<never> => {
  throw new Error('no request is approved in these tests');
};
const EXECUTORS: ApprovalExecutors = {
  balance_adjustment: notApprovedHere,
  withdrawal: notApprovedHere,
  secret_rotation: notApprovedHere,
  channel_credentials: notApprovedHere,
  account_role: notApprovedHere,
};

/** Accounts, sessions, approvals with withdrawal holds, audit entries; `merchantId` must have 500.00 available. */
export async function seedTeamRecords(service: MerchantConsoleService, masterKey: Buffer, merchantId: number): Promise<void> {
  const { clock, store } = service;
  const accounts = createAccountRepository();
  const audit = createAuditService({ clock, audit: createAuditRepository() });
  const approvals = createApprovalService({
    clock,
    secretBox: createSecretBox(masterKey),
    approvals: createApprovalRepository(),
    accounts,
    merchants: createMerchantRepository(),
    audit,
    ledger: service.services.ledger,
    verifyTotp: async () => undefined,
    executors: EXECUTORS,
  });
  const now = clock.now();
  const { owner, finance } = await store.write(async (tx) => {
    const owner = await accounts.insert(tx, {
      login: 'olga',
      display_name: 'Olga (owner)',
      password_hash: 'scrypt$16384$8$1$c2FsdA$aGFzaA',
      role: 'owner',
      all_merchants: 1,
      enabled: 1,
      password_changed_at: now,
      createtime: now,
    });
    const finance = await accounts.insert(tx, {
      login: 'fang',
      display_name: 'Fang (finance)',
      password_hash: 'scrypt$16384$8$1$c2FsdDI$aGFzaDI',
      role: 'finance',
      all_merchants: 0,
      enabled: 1,
      password_changed_at: now,
      createtime: now,
    });
    await accounts.setMerchants(tx, finance, [merchantId], now);
    for (const [id, login] of [[owner, 'olga'], [finance, 'fang']] as const) {
      await audit.record(tx, CLI_ACTOR, { action: 'account.create', target: `account ${login} (#${id})`, after: { login, password: 'never in the log' } });
    }
    await tx.run('INSERT INTO auth_throttle (key, failures, first_failure_at, blocked_until) VALUES (?, ?, ?, ?)', ['login:olga', 3, now - 60, now + 300]);
    await tx.run(
      `INSERT INTO console_sessions (id, secret_hash, created_at, last_seen_at, expires_at, account_id, stage, address, user_agent)
       VALUES (?, ?, ?, ?, ?, ?, 'full', '10.0.0.7', 'Firefox')`,
      ['session-olga', Buffer.from('f00d', 'hex'), now, now, now + 3600, owner],
    );
    await tx.run(
      `INSERT INTO console_login_tokens (id, secret_hash, created_at, expires_at, purpose, account_id) VALUES (?, ?, ?, ?, 'setup', ?)`,
      ['setup-fang', Buffer.from('beef', 'hex'), now, now + 3600, finance],
    );
    return { owner, finance };
  });

  // Built loosely and cast: ApprovalParty is gaining members (the account's role) in the console work under way.
  const party = (accountId: number, login: string, role: Role, merchantIds: number[] | null) =>
    ({
      accountId,
      role,
      via: 'console',
      merchantIds,
      platform: merchantIds === null,
      audit: { kind: 'account', accountId, login, role, address: '10.0.0.7', userAgent: 'Firefox' },
    }) as ApprovalParty;
  const olga = party(owner, 'olga', 'owner', null);
  const fang = party(finance, 'fang', 'finance', [merchantId]);
  const withdrawal = (fen: number) => ({
    kind: 'withdrawal' as const,
    merchantId,
    payload: { merchant_id: merchantId, input: { order_type: 2, cny_amount: fen }, expected_amount: fen },
    title: `Withdrawal of ${fen} fen`,
    changes: [{ label: 'taken from available', before: null, after: String(fen) }],
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
      changes: [{ label: 'available', before: null, after: '+50.00' }],
    });
  });
}

/** Every copied table's rows, in a fixed order (columns by name: the engines order some differently). */
export async function dumpTables(store: Store): Promise<Record<string, unknown[]>> {
  return store.read(async (tx) => {
    const out: Record<string, unknown[]> = {};
    for (const table of COPIED_TABLES) {
      const rows = await tx.all<Record<string, unknown>>(`SELECT * FROM ${table}`);
      out[table] = rows.map((r) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)))).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    }
    return out;
  });
}
