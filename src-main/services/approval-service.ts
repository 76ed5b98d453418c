/**
 * Two-person approval (docs/accounts.md, "Two-person approval"): money
 * movement and the keys to it wait for a second account's approval —
 * balance adjustments, console withdrawals above the merchant's threshold
 * (API ones above its API threshold), API-secret rotation, new channel
 * credentials, role changes. A request shows exactly what will change,
 * waits 24 h, and is approved (with a fresh TOTP code, never by its
 * requester), rejected, cancelled by its requester, or expires. A
 * withdrawal's sum is held in the ledger while it waits and released when
 * it ends; on approval the order is created by the same service as always.
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import { ROLE_PERMISSIONS, roleCan, type Permission, type Role } from '../../src-shared/auth/permissions';
import type { ApprovalChangeLine, ApprovalKind, ApprovalState, ApprovalView } from '../../src-shared/schemas/accounts';
import type { SecretBox } from '../crypto/secret-box';
import type { AccountRepository } from '../repositories/account-repository';
import type { ApprovalRepository, ApprovalRow } from '../repositories/approval-repository';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { OrderRow } from '../repositories/order-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { AuditActor, AuditService } from './audit-service';
import type { Clock } from './context';

export const APPROVAL_LIFETIME_SECONDS = 24 * 3600;

/** Who asks or decides: an account (console, desktop), or the merchant API (a held API withdrawal). */
export interface ApprovalParty {
  accountId: number | null;
  /** The account's role; null for the merchant API. */
  role: Role | null;
  via: 'console' | 'api' | 'desktop';
  /** The merchants the party acts for; null: every merchant. */
  merchantIds: readonly number[] | null;
  /** Platform kinds (channels, roles, every merchant's requests) need platform staff. */
  platform: boolean;
  audit: AuditActor;
}

/** What a request is about, per kind: the payload kept (secrets sealed) and how it is shown. */
export interface ApprovalDraft {
  kind: ApprovalKind;
  merchantId: number | null;
  payload: Record<string, unknown>;
  title: string;
  /** The title's variable parts (amount, merchant, channel, account, roles), for the console's own words. */
  titleParams: Record<string, string>;
  changes: ApprovalChangeLine[];
  /** A withdrawal's sum (fen) to hold while it waits. */
  hold?: number;
}

/**
 * What an approval does, by kind; the services involved are wired in
 * service.ts. `actor` is the approver: the change is audited as theirs.
 */
export interface ApprovalExecutors {
  /** Books the adjustment; answers what to show as the outcome. */
  balance_adjustment(tx: WriteTx, payload: Record<string, unknown>, actor: AuditActor): Promise<{ outcome: string; result: unknown }>;
  /** Creates the sell order (the same service as createOrder). */
  withdrawal(tx: WriteTx, payload: Record<string, unknown>, actor: AuditActor): Promise<{ outcome: string; result: unknown; order: OrderRow }>;
  /** Rotates the secret; `result` holds it sealed for the requester's one reveal. */
  secret_rotation(tx: WriteTx, payload: Record<string, unknown>, actor: AuditActor): Promise<{ outcome: string; result: unknown }>;
  channel_credentials(tx: WriteTx, payload: Record<string, unknown>, actor: AuditActor): Promise<{ outcome: string; result: unknown }>;
  account_role(tx: WriteTx, payload: Record<string, unknown>, actor: AuditActor): Promise<{ outcome: string; result: unknown }>;
}

/** Kinds any approver serving the merchant may decide; the others need platform staff. */
const MERCHANT_KINDS: readonly ApprovalKind[] = ['balance_adjustment', 'withdrawal'];

/**
 * An approver must also be allowed to do what the request does: finance
 * decides adjustments and withdrawals, not role changes or channel
 * credentials (docs/accounts.md, "Two-person approval").
 */
export const PERMISSION_OF_KIND: Record<ApprovalKind, Permission> = {
  balance_adjustment: 'balances.adjust',
  withdrawal: 'orders.withdraw',
  secret_rotation: 'merchants.rotate_secret',
  channel_credentials: 'channels.credentials',
  account_role: 'accounts.manage',
};
/** Roles that may decide requests of a kind. */
function approverRoles(kind: ApprovalKind): Role[] {
  return (Object.keys(ROLE_PERMISSIONS) as Role[]).filter((r) => roleCan(r, 'approvals.decide') && roleCan(r, PERMISSION_OF_KIND[kind]));
}

export interface ApprovalServiceDeps {
  clock: Clock;
  secretBox: SecretBox;
  approvals: ApprovalRepository;
  accounts: AccountRepository;
  merchants: MerchantRepository;
  audit: AuditService;
  ledger: { hold(tx: WriteTx, kind: 'withdrawal_hold' | 'withdrawal_release', merchantId: number, approvalId: number, amount: number, reason: string): Promise<number> };
  /** Checks a fresh TOTP code of an account (and marks it used); throws when it is wrong. */
  verifyTotp(tx: WriteTx, accountId: number, code: string): Promise<void>;
  executors: ApprovalExecutors;
}

interface StoredSummary {
  title: string;
  title_params?: Record<string, string>;
  changes: ApprovalDraft['changes'];
  hold: number | null;
}

export function createApprovalService(deps: ApprovalServiceDeps) {
  const { clock, approvals, accounts, merchants, audit } = deps;

  function summaryOf(row: ApprovalRow): StoredSummary {
    return JSON.parse(row.summary) as StoredSummary;
  }

  function payloadOf(row: ApprovalRow): Record<string, unknown> {
    return JSON.parse(deps.secretBox.open(row.payload)) as Record<string, unknown>;
  }

  function mayDecide(row: ApprovalRow, party: ApprovalParty): boolean {
    if (row.requested_by !== null && row.requested_by === party.accountId) return false;
    if (party.role === null || !roleCan(party.role, 'approvals.decide') || !roleCan(party.role, PERMISSION_OF_KIND[row.kind])) return false;
    if (!MERCHANT_KINDS.includes(row.kind) && !party.platform) return false;
    return row.merchant_id === null ? party.platform : party.merchantIds === null || party.merchantIds.includes(row.merchant_id);
  }

  async function view(tx: ReadTx, row: ApprovalRow, party: ApprovalParty | null, canDecide: boolean): Promise<ApprovalView> {
    const ref = async (id: number | null) => {
      if (id === null) return null;
      const a = (await accounts.findById(tx, id))!;
      return { id: a.id, login: a.login, display_name: a.display_name };
    };
    const summary = summaryOf(row);
    const result = row.result === null ? null : (JSON.parse(row.result) as { outcome?: string; secret_enc?: string });
    return {
      id: row.id,
      kind: row.kind,
      state: row.state,
      merchant_id: row.merchant_id,
      merchant_name: row.merchant_id === null ? null : ((await merchants.findById(tx, row.merchant_id))?.name ?? null),
      requested_by: await ref(row.requested_by),
      requested_via: row.requested_via,
      title: summary.title,
      title_params: summary.title_params ?? {},
      changes: summary.changes,
      createtime: row.createtime,
      expires_at: row.expires_at,
      decided_by: await ref(row.decided_by),
      decided_at: row.decided_at,
      decision_note: row.decision_note,
      outcome: result?.outcome ?? null,
      can_decide: row.state === 'pending' && canDecide && party !== null && mayDecide(row, party),
      mine: party !== null && row.requested_by !== null && row.requested_by === party.accountId,
      can_reveal_secret:
        row.kind === 'secret_rotation' && row.state === 'approved' && result?.secret_enc !== undefined && party !== null && row.requested_by === party.accountId,
    };
  }

  /** Releases what a request held (a withdrawal's sum), when it ends without an order. */
  async function releaseHold(tx: WriteTx, row: ApprovalRow, why: string): Promise<void> {
    const held = summaryOf(row).hold;
    if (row.kind === 'withdrawal' && held !== null && row.merchant_id !== null) {
      await deps.ledger.hold(tx, 'withdrawal_release', row.merchant_id, row.id, held, `withdrawal request #${row.id} ${why}: hold released`);
    }
  }

  async function requirePending(tx: WriteTx, id: number): Promise<ApprovalRow> {
    const row = await approvals.findByIdForUpdate(tx, id);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `id: approval request ${id} not found`);
    if (row.state !== 'pending') throw new AppError(ErrorCode.CONFLICT, `id: approval request ${id} is ${row.state}, no longer pending`);
    if (row.expires_at <= clock.now()) {
      await expire(tx, row);
      throw new AppError(ErrorCode.CONFLICT, `id: approval request ${id} expired at ${row.expires_at}`);
    }
    return row;
  }

  async function end(tx: WriteTx, row: ApprovalRow, state: Exclude<ApprovalState, 'pending'>, by: number | null, note: string | null, result: unknown): Promise<ApprovalRow> {
    const decided = await approvals.decide(tx, { id: row.id, state, decided_by: by, decided_at: clock.now(), decision_note: note, result: result === null ? null : JSON.stringify(result) });
    // The row is locked while deciding; should it have moved on anyway, this unit of work (and all it did) is undone.
    if (!decided) throw new AppError(ErrorCode.CONFLICT, `id: approval request ${row.id} was decided meanwhile`);
    return (await approvals.findById(tx, row.id))!;
  }

  async function expire(tx: WriteTx, row: ApprovalRow): Promise<void> {
    await releaseHold(tx, row, 'expired');
    await end(tx, row, 'expired', null, null, { outcome: 'expired without a decision' });
    await audit.record(tx, { kind: 'system', login: 'system' }, { action: 'approval.expire', target: `approval #${row.id}`, merchantId: row.merchant_id, before: { state: 'pending' }, after: { state: 'expired' } });
  }

  return {
    /**
     * Files a request (and holds a withdrawal's sum). `execute` is what the
     * caller does at once instead when no approval is needed (see `needed`).
     */
    async request(tx: WriteTx, party: ApprovalParty, draft: ApprovalDraft): Promise<ApprovalView> {
      const now = clock.now();
      const id = await approvals.insert(tx, {
        kind: draft.kind,
        merchant_id: draft.merchantId,
        requested_by: party.accountId,
        requested_via: party.via,
        // The payload may carry secrets (channel credentials, alpha personal data): sealed.
        payload: deps.secretBox.seal(JSON.stringify(draft.payload)),
        summary: JSON.stringify({ title: draft.title, title_params: draft.titleParams, changes: draft.changes, hold: draft.hold ?? null } satisfies StoredSummary),
        createtime: now,
        expires_at: now + APPROVAL_LIFETIME_SECONDS,
      });
      if (draft.kind === 'withdrawal' && draft.hold !== undefined && draft.merchantId !== null) {
        await deps.ledger.hold(tx, 'withdrawal_hold', draft.merchantId, id, draft.hold, `withdrawal request #${id}: held until a second person decides`);
      }
      const row = (await approvals.findById(tx, id))!;
      await audit.record(tx, party.audit, {
        action: 'approval.request',
        target: `approval #${id} (${draft.kind})`,
        merchantId: draft.merchantId,
        after: { title: draft.title, changes: draft.changes },
      });
      return view(tx, row, party, false);
    },

    /**
     * Whether an action needs a second person. Always, but for the person at
     * the desktop app on a store where nobody else could approve (a
     * one-person desktop: docs/accounts.md, "Desktop").
     */
    async needed(tx: ReadTx, party: ApprovalParty, kind: ApprovalKind, merchantId: number | null): Promise<boolean> {
      if (party.via !== 'desktop') return true;
      return (await accounts.countApprovers(tx, approverRoles(kind), party.accountId, merchantId)) > 0;
    },

    async approve(tx: WriteTx, party: ApprovalParty, id: number, totpCode: string, note: string | null): Promise<ApprovalView> {
      const row = await requirePending(tx, id);
      if (row.requested_by !== null && row.requested_by === party.accountId) {
        throw new AppError(ErrorCode.PERMISSION_DENIED, `id: approval request ${id} is your own: a second person must approve it`);
      }
      if (!mayDecide(row, party)) throw new AppError(ErrorCode.PERMISSION_DENIED, `id: approval request ${id} is not one this account may decide`);
      if (party.accountId === null) throw new AppError(ErrorCode.PERMISSION_DENIED, 'id: approving needs a signed-in account');
      await deps.verifyTotp(tx, party.accountId, totpCode);
      const payload = payloadOf(row);
      let ended: ApprovalRow;
      try {
        const done = await tx.savepoint(async (sp) => {
          if (row.kind === 'withdrawal') {
            // The held sum goes back first; the order then reserves its own, in the same unit of work.
            await releaseHold(sp, row, 'approved');
            return deps.executors.withdrawal(sp, payload, party.audit);
          }
          return deps.executors[row.kind](sp, payload, party.audit);
        });
        ended = await end(tx, row, 'approved', party.accountId, note, { outcome: done.outcome, ...(done.result as object) });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        // What was asked can no longer be done (the balance, the channel, the fees changed): the request fails.
        await releaseHold(tx, row, 'failed');
        ended = await end(tx, row, 'failed', party.accountId, note, { outcome: `not done: ${err.message}` });
      }
      await audit.record(tx, party.audit, {
        action: ended.state === 'approved' ? 'approval.approve' : 'approval.fail',
        target: `approval #${row.id} (${row.kind})`,
        merchantId: row.merchant_id,
        before: { state: 'pending', title: summaryOf(row).title },
        after: { state: ended.state, outcome: (JSON.parse(ended.result!) as { outcome: string }).outcome, note },
      });
      return view(tx, ended, party, true);
    },

    async reject(tx: WriteTx, party: ApprovalParty, id: number, note: string): Promise<ApprovalView> {
      const row = await requirePending(tx, id);
      if (!mayDecide(row, party)) {
        throw new AppError(
          ErrorCode.PERMISSION_DENIED,
          row.requested_by === party.accountId ? `id: approval request ${id} is your own: cancel it instead` : `id: approval request ${id} is not one this account may decide`,
        );
      }
      await releaseHold(tx, row, 'rejected');
      const ended = await end(tx, row, 'rejected', party.accountId, note, { outcome: 'rejected' });
      await audit.record(tx, party.audit, { action: 'approval.reject', target: `approval #${id} (${row.kind})`, merchantId: row.merchant_id, before: { state: 'pending' }, after: { state: 'rejected', note } });
      return view(tx, ended, party, true);
    },

    async cancel(tx: WriteTx, party: ApprovalParty, id: number): Promise<ApprovalView> {
      const row = await requirePending(tx, id);
      if (row.requested_by === null || row.requested_by !== party.accountId) {
        throw new AppError(ErrorCode.PERMISSION_DENIED, `id: only the account that asked may cancel approval request ${id}`);
      }
      await releaseHold(tx, row, 'cancelled');
      const ended = await end(tx, row, 'cancelled', party.accountId, null, { outcome: 'cancelled by the requester' });
      await audit.record(tx, party.audit, { action: 'approval.cancel', target: `approval #${id} (${row.kind})`, merchantId: row.merchant_id, before: { state: 'pending' }, after: { state: 'cancelled' } });
      return view(tx, ended, party, false);
    },

    /** The earliest deadline of a pending request (background work wakes up for it), or null. */
    nextExpiry: (tx: ReadTx) => approvals.nextExpiry(tx),

    /** Ends the pending requests past their deadline (holds released); returns how many. Background work. */
    async expireDue(tx: WriteTx, limit = 100): Promise<number> {
      const rows = await approvals.expired(tx, clock.now(), limit);
      for (const row of rows) await expire(tx, row);
      return rows.length;
    },

    /** A withdrawal request the merchant API filed for this merchant, as stored (its outcome: api-withdrawal-service). */
    async findOfMerchant(tx: ReadTx, merchantId: number, id: number): Promise<ApprovalRow | undefined> {
      const row = await approvals.findById(tx, id);
      return row && row.merchant_id === merchantId && row.kind === 'withdrawal' && row.requested_via === 'api' ? row : undefined;
    },

    async get(tx: ReadTx, party: ApprovalParty, id: number, canDecide: boolean): Promise<ApprovalView> {
      const row = await approvals.findById(tx, id);
      const visible = row && (party.platform || (row.merchant_id !== null && (party.merchantIds ?? []).includes(row.merchant_id)) || row.requested_by === party.accountId);
      if (!row || !visible) throw new AppError(ErrorCode.NOT_FOUND, `id: approval request ${id} not found`);
      return view(tx, row, party, canDecide);
    },

    async list(
      tx: ReadTx,
      party: ApprovalParty,
      canDecide: boolean,
      q: { state?: ApprovalState | undefined; merchant_id?: number | undefined; page: number; limit: number },
    ): Promise<{ list: ApprovalView[]; total: number; page: number; limit: number }> {
      const { rows, total } = await approvals.list(tx, {
        state: q.state,
        merchantId: q.merchant_id,
        merchantIds: party.merchantIds ?? undefined,
        offset: (q.page - 1) * q.limit,
        limit: q.limit,
      });
      const list: ApprovalView[] = [];
      for (const row of rows) list.push(await view(tx, row, party, canDecide));
      return { list, total, page: q.page, limit: q.limit };
    },

    /** Pending requests this party could decide: the inbox badge. */
    waiting(tx: ReadTx, party: ApprovalParty): Promise<number> {
      return approvals.countWaiting(tx, party.accountId ?? 0, party.merchantIds, party.platform);
    },

    /**
     * The new API secret of an approved rotation, for the account that asked,
     * once: it is removed from the store as it is shown.
     */
    async revealSecret(tx: WriteTx, party: ApprovalParty, id: number): Promise<{ merchantId: number; secret: string }> {
      const row = await approvals.findByIdForUpdate(tx, id);
      if (!row || row.kind !== 'secret_rotation' || row.requested_by !== party.accountId) {
        throw new AppError(ErrorCode.NOT_FOUND, `approval_id: no secret rotation ${id} asked for by this account`);
      }
      if (row.state !== 'approved') throw new AppError(ErrorCode.CONFLICT, `approval_id: rotation ${id} is ${row.state}`);
      const result = JSON.parse(row.result!) as { outcome: string; secret_enc?: string };
      if (!result.secret_enc) throw new AppError(ErrorCode.CONFLICT, `approval_id: the secret of rotation ${id} was shown already`);
      const secret = deps.secretBox.open(result.secret_enc);
      await approvals.setResult(tx, id, JSON.stringify({ outcome: result.outcome, revealed_at: clock.now() }));
      await audit.record(tx, party.audit, { action: 'merchant.secret_revealed', target: `merchant #${row.merchant_id}`, merchantId: row.merchant_id });
      return { merchantId: row.merchant_id!, secret };
    },
  };
}
export type ApprovalService = ReturnType<typeof createApprovalService>;
