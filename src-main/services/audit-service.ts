/**
 * The audit trail (docs/accounts.md, "Audit trail"): every state-changing
 * action from the console or the CLI, every approval decision, every sign-in
 * and failed sign-in, appended in the same unit of work as the change. Each
 * entry carries the SHA-256 of its content and of the entry before it, so a
 * changed, removed or inserted entry breaks the chain (`verify`); the store
 * refuses updates and deletes of entries (triggers, migration 9).
 */
import { createHash } from 'node:crypto';
import type { AuditEntryView } from '../../src-shared/schemas/accounts';
import type { AuditActorKind, AuditFilter, AuditRepository, AuditRow } from '../repositories/audit-repository';
import type { ReadTx, Store, WriteTx } from '../store/store';
import type { Clock } from './context';

/** Who did it, as the audit trail records it. */
export interface AuditActor {
  kind: AuditActorKind;
  accountId?: number | null;
  login?: string | null;
  role?: string | null;
  address?: string | null;
  userAgent?: string | null;
}

export const CLI_ACTOR: AuditActor = { kind: 'cli', login: 'cli', role: 'administrator' };
export const SYSTEM_ACTOR: AuditActor = { kind: 'system', login: 'system' };

export interface AuditRecord {
  action: string;
  target: string;
  merchantId?: number | null | undefined;
  before?: unknown;
  after?: unknown;
}

export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/** Keys whose values never reach the audit trail. */
const SECRET_KEY = /(secret|password|token|credential|config|totp|^code$|card_no|card_number$|cert_no|mobile_no)/i;

/** A copy of `value` with secrets replaced by "[redacted]" (keys by name, at any depth). */
export function redactForAudit(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactForAudit);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined && v !== '' ? '[redacted]' : redactForAudit(v);
    }
    return out;
  }
  return value;
}

type HashedFields = Omit<AuditRow, 'prev_hash' | 'hash'>;

/** The hash of an entry: its fields in a fixed order, chained to the previous entry's hash. */
export function auditHash(prevHash: string, e: HashedFields): string {
  const content = JSON.stringify([
    e.id,
    e.at,
    e.actor_kind,
    e.account_id,
    e.account_login,
    e.role,
    e.address,
    e.user_agent,
    e.action,
    e.target,
    e.merchant_id,
    e.before,
    e.after,
  ]);
  return createHash('sha256').update(prevHash).update('\n').update(content).digest('hex');
}

export interface AuditProblem {
  /** The first entry that is not as it was appended. */
  id: number;
  kind: 'changed' | 'removed' | 'inserted' | 'tail removed';
  message: string;
}

export interface AuditVerification {
  ok: boolean;
  entries: number;
  /** The chain's last hash (anchor it elsewhere to detect a rewritten chain). */
  head_hash: string;
  problem: AuditProblem | null;
}

function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(redactForAudit(value));
}

export function toAuditEntryView(row: AuditRow): AuditEntryView {
  return {
    id: row.id,
    at: row.at,
    actor_kind: row.actor_kind,
    account_login: row.account_login,
    role: row.role,
    address: row.address,
    user_agent: row.user_agent,
    action: row.action,
    target: row.target,
    merchant_id: row.merchant_id,
    before: row.before === null ? null : (JSON.parse(row.before) as unknown),
    after: row.after === null ? null : (JSON.parse(row.after) as unknown),
    hash: row.hash,
  };
}

export function createAuditService({ clock, audit }: { clock: Clock; audit: AuditRepository }) {
  return {
    /** Appends one entry in the caller's unit of work (the change it records is in the same one). */
    async record(tx: WriteTx, actor: AuditActor, record: AuditRecord): Promise<void> {
      const head = await audit.lockHead(tx);
      const fields: HashedFields = {
        id: head.last_id + 1,
        at: clock.now(),
        actor_kind: actor.kind,
        account_id: actor.accountId ?? null,
        account_login: actor.login ?? null,
        role: actor.role ?? null,
        address: actor.address ?? null,
        user_agent: actor.userAgent ? actor.userAgent.slice(0, 256) : null,
        action: record.action,
        target: record.target,
        merchant_id: record.merchantId ?? null,
        before: json(record.before),
        after: json(record.after),
      };
      await audit.append(tx, { ...fields, prev_hash: head.last_hash, hash: auditHash(head.last_hash, fields) });
    },

    async list(tx: ReadTx, filter: AuditFilter): Promise<{ list: AuditEntryView[]; next_before_id: number | null }> {
      // One more than asked tells whether an older page exists.
      const rows = await audit.list(tx, { ...filter, limit: filter.limit + 1 });
      const list = rows.slice(0, filter.limit);
      return { list: list.map(toAuditEntryView), next_before_id: rows.length > filter.limit ? list[list.length - 1]!.id : null };
    },

    /**
     * Recomputes the chain from the first entry and names the first one that
     * was changed, removed or inserted. Reads in pages (one snapshot each):
     * run it on a store nobody writes to for an exact answer.
     */
    async verify(store: Pick<Store, 'read'>): Promise<AuditVerification> {
      let prevHash = AUDIT_GENESIS_HASH;
      let expectedId = 1;
      let entries = 0;
      let lastId = 0;
      for (;;) {
        const rows = await store.read((tx) => audit.page(tx, lastId, 1000));
        for (const row of rows) {
          entries++;
          if (row.id !== expectedId) {
            return fail(row.id > expectedId
              ? { id: expectedId, kind: 'removed', message: `entry ${expectedId} was removed (the chain goes from ${expectedId - 1} to ${row.id})` }
              : { id: row.id, kind: 'inserted', message: `entry ${row.id} was inserted out of order` });
          }
          const { prev_hash: _p, hash: stored, ...fields } = row;
          if (row.prev_hash !== prevHash || auditHash(prevHash, fields) !== stored) {
            // Beyond the last entry the service wrote (the head moves in the unit of work of every append): inserted.
            const head = await store.read((tx) => audit.head(tx));
            if (row.id > head.last_id) return fail({ id: row.id, kind: 'inserted', message: `entry ${row.id} was inserted after the last entry written (${head.last_id})` });
            if (row.prev_hash !== prevHash) {
              return fail({ id: row.id, kind: 'inserted', message: `entry ${row.id} does not follow entry ${row.id - 1}: an entry was inserted or removed before it` });
            }
            return fail({ id: row.id, kind: 'changed', message: `entry ${row.id} was changed after it was written` });
          }
          prevHash = stored;
          expectedId = row.id + 1;
          lastId = row.id;
        }
        if (rows.length < 1000) break;
      }
      const head = await store.read((tx) => audit.head(tx));
      if (lastId > head.last_id) {
        return fail({ id: head.last_id + 1, kind: 'inserted', message: `entry ${head.last_id + 1} was inserted after the last entry written (${head.last_id})` });
      }
      if (head.last_id !== lastId || head.last_hash !== prevHash) {
        return fail({
          id: lastId + 1,
          kind: 'tail removed',
          message: `the chain ends at entry ${lastId}, but entry ${head.last_id} was the last one written: entries after ${lastId} were removed`,
        });
      }
      return { ok: true, entries, head_hash: prevHash, problem: null };

      function fail(problem: AuditProblem): AuditVerification {
        return { ok: false, entries, head_hash: prevHash, problem };
      }
    },
  };
}
export type AuditService = ReturnType<typeof createAuditService>;
