import type { ApprovalKind, ApprovalState } from '../../src-shared/schemas/accounts';
import type { ReadTx, WriteTx } from '../store/store';

export interface ApprovalRow {
  id: number;
  kind: ApprovalKind;
  merchant_id: number | null;
  requested_by: number | null;
  requested_via: 'console' | 'api' | 'desktop';
  /** JSON: what is done on approval (its secrets sealed). */
  payload: string;
  /** JSON: { title, changes } as the inbox shows them. */
  summary: string;
  state: ApprovalState;
  createtime: number;
  expires_at: number;
  decided_by: number | null;
  decided_at: number | null;
  decision_note: string | null;
  /** JSON: what the approval did. */
  result: string | null;
}

export type NewApprovalRow = Pick<ApprovalRow, 'kind' | 'merchant_id' | 'requested_by' | 'requested_via' | 'payload' | 'summary' | 'createtime' | 'expires_at'>;

export interface ApprovalListFilter {
  state?: ApprovalState | undefined;
  merchantId?: number | undefined;
  /** A limited account: requests about its merchants only. */
  merchantIds?: readonly number[] | undefined;
  offset: number;
  limit: number;
}

function whereOf(f: ApprovalListFilter): { where: string; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (f.state !== undefined) {
    where.push('state = @state');
    params.state = f.state;
  }
  if (f.merchantId !== undefined) {
    where.push('merchant_id = @merchantId');
    params.merchantId = f.merchantId;
  }
  if (f.merchantIds !== undefined) {
    where.push(`merchant_id IN (${f.merchantIds.map((_, i) => `@m${i}`).join(', ') || 'NULL'})`);
    f.merchantIds.forEach((m, i) => (params[`m${i}`] = m));
  }
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

/** Requests waiting for (or given) a second person's approval. */
export function createApprovalRepository() {
  return {
    async insert(tx: WriteTx, row: NewApprovalRow): Promise<number> {
      const inserted = await tx.get<{ id: number }>(
        `INSERT INTO approval_requests (kind, merchant_id, requested_by, requested_via, payload, summary, createtime, expires_at)
         VALUES (@kind, @merchant_id, @requested_by, @requested_via, @payload, @summary, @createtime, @expires_at) RETURNING id`,
        row,
      );
      return inserted!.id;
    },
    findById(tx: ReadTx, id: number): Promise<ApprovalRow | undefined> {
      return tx.get('SELECT * FROM approval_requests WHERE id = ?', [id]);
    },
    /** The row, locked until the unit of work ends: two approvers deciding at once take turns (PostgreSQL). */
    findByIdForUpdate(tx: WriteTx, id: number): Promise<ApprovalRow | undefined> {
      return tx.get(`SELECT * FROM approval_requests WHERE id = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [id]);
    },
    /** Ends a pending request; false when it was no longer pending. */
    async decide(
      tx: WriteTx,
      row: { id: number; state: Exclude<ApprovalState, 'pending'>; decided_by: number | null; decided_at: number; decision_note: string | null; result: string | null },
    ): Promise<boolean> {
      const changed = await tx.run(
        `UPDATE approval_requests SET state = @state, decided_by = @decided_by, decided_at = @decided_at, decision_note = @decision_note, result = @result
         WHERE id = @id AND state = 'pending'`,
        row,
      );
      return changed === 1;
    },
    async setResult(tx: WriteTx, id: number, result: string): Promise<void> {
      await tx.run('UPDATE approval_requests SET result = ? WHERE id = ?', [result, id]);
    },
    async list(tx: ReadTx, f: ApprovalListFilter): Promise<{ rows: ApprovalRow[]; total: number }> {
      const { where, params } = whereOf(f);
      const total = (await tx.get<{ n: number }>(`SELECT count(*) AS n FROM approval_requests ${where}`, params))!.n;
      const rows = await tx.all<ApprovalRow>(`SELECT * FROM approval_requests ${where} ORDER BY id DESC LIMIT @limit OFFSET @offset`, {
        ...params,
        limit: f.limit,
        offset: f.offset,
      });
      return { rows, total };
    },
    async nextExpiry(tx: ReadTx): Promise<number | null> {
      return (await tx.get<{ t: number | null }>(`SELECT min(expires_at) AS t FROM approval_requests WHERE state = 'pending'`))!.t;
    },
    /** Pending requests past their deadline, locked for the sweep (rows another instance sweeps are skipped). */
    expired(tx: WriteTx, now: number, limit: number): Promise<ApprovalRow[]> {
      const sql = `SELECT * FROM approval_requests WHERE state = 'pending' AND expires_at <= ? ORDER BY expires_at, id LIMIT ?`;
      return tx.all(tx.dialect === 'postgres' ? `${sql} FOR UPDATE SKIP LOCKED` : sql, [now, limit]);
    },
    /** Pending requests (of these merchants; null: all) not asked for by `exceptAccountId`: the inbox badge. */
    async countWaiting(tx: ReadTx, exceptAccountId: number, merchantIds: readonly number[] | null, platformKinds: boolean): Promise<number> {
      const merchants = merchantIds === null ? '' : ` AND merchant_id IN (${merchantIds.map((_, i) => `@m${i}`).join(', ') || 'NULL'})`;
      const kinds = platformKinds ? '' : ` AND kind IN ('balance_adjustment', 'withdrawal')`;
      const row = await tx.get<{ n: number }>(
        `SELECT count(*) AS n FROM approval_requests WHERE state = 'pending' AND (requested_by IS NULL OR requested_by <> @me)${merchants}${kinds}`,
        { me: exceptAccountId, ...Object.fromEntries((merchantIds ?? []).map((m, i) => [`m${i}`, m])) },
      );
      return row!.n;
    },
  };
}
export type ApprovalRepository = ReturnType<typeof createApprovalRepository>;
