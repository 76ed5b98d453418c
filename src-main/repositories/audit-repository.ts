import type { ReadTx, WriteTx } from '../store/store';

export type AuditActorKind = 'account' | 'cli' | 'desktop' | 'system' | 'anonymous' | 'merchant';

export interface AuditRow {
  id: number;
  at: number;
  actor_kind: AuditActorKind;
  account_id: number | null;
  account_login: string | null;
  role: string | null;
  address: string | null;
  user_agent: string | null;
  action: string;
  target: string;
  merchant_id: number | null;
  /** JSON, secrets redacted. */
  before: string | null;
  after: string | null;
  prev_hash: string;
  hash: string;
}

export interface AuditFilter {
  accountLogin?: string | undefined;
  action?: string | undefined;
  merchantId?: number | undefined;
  /** Limited accounts see entries about their merchants only. */
  merchantIds?: readonly number[] | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  beforeId?: number | undefined;
  limit: number;
}

const HEAD_FOR_UPDATE = 'SELECT last_id, last_hash FROM audit_head WHERE id = 1 FOR UPDATE';

/** The append-only audit log and the end of its hash chain. */
export function createAuditRepository() {
  return {
    /**
     * The end of the chain, locked until the unit of work ends: appends on
     * every instance take turns, so each entry follows the previous one.
     */
    async lockHead(tx: WriteTx): Promise<{ last_id: number; last_hash: string }> {
      return (await tx.get<{ last_id: number; last_hash: string }>(tx.dialect === 'postgres' ? HEAD_FOR_UPDATE : 'SELECT last_id, last_hash FROM audit_head WHERE id = 1'))!;
    },
    async head(tx: ReadTx): Promise<{ last_id: number; last_hash: string }> {
      return (await tx.get<{ last_id: number; last_hash: string }>('SELECT last_id, last_hash FROM audit_head WHERE id = 1'))!;
    },
    async append(tx: WriteTx, row: AuditRow): Promise<void> {
      await tx.run(
        `INSERT INTO audit_log (id, at, actor_kind, account_id, account_login, role, address, user_agent, action, target, merchant_id,
           before, after, prev_hash, hash)
         VALUES (@id, @at, @actor_kind, @account_id, @account_login, @role, @address, @user_agent, @action, @target, @merchant_id,
           @before, @after, @prev_hash, @hash)`,
        row,
      );
      await tx.run('UPDATE audit_head SET last_id = ?, last_hash = ? WHERE id = 1', [row.id, row.hash]);
    },
    /** Newest first, filtered, keyset-paginated by id. */
    list(tx: ReadTx, f: AuditFilter): Promise<AuditRow[]> {
      const where: string[] = [];
      const params: Record<string, unknown> = { limit: f.limit };
      if (f.accountLogin !== undefined) {
        where.push('account_login = @login');
        params.login = f.accountLogin;
      }
      if (f.action !== undefined) {
        where.push('action = @action');
        params.action = f.action;
      }
      if (f.merchantId !== undefined) {
        where.push('merchant_id = @merchantId');
        params.merchantId = f.merchantId;
      }
      if (f.merchantIds !== undefined) {
        // A limited account: entries about one of its merchants, or about itself.
        where.push(`(merchant_id IN (${f.merchantIds.map((_, i) => `@m${i}`).join(', ') || 'NULL'}))`);
        f.merchantIds.forEach((m, i) => (params[`m${i}`] = m));
      }
      if (f.startTime !== undefined) {
        where.push('at >= @startTime');
        params.startTime = f.startTime;
      }
      if (f.endTime !== undefined) {
        where.push('at <= @endTime');
        params.endTime = f.endTime;
      }
      if (f.beforeId !== undefined) {
        where.push('id < @beforeId');
        params.beforeId = f.beforeId;
      }
      return tx.all(`SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT @limit`, params);
    },
    /** Every entry in chain order, in pages (verification). */
    page(tx: ReadTx, afterId: number, limit: number): Promise<AuditRow[]> {
      return tx.all('SELECT * FROM audit_log WHERE id > ? ORDER BY id LIMIT ?', [afterId, limit]);
    },
  };
}
export type AuditRepository = ReturnType<typeof createAuditRepository>;
