import type { Database, Statement } from 'better-sqlite3';
import type { OrderStatus, OrderType, PayMethod } from '../../src-shared/constants';

export interface OrderRow {
  id: number;
  order_no: string;
  merchant_id: number;
  channel_id: number;
  order_type: OrderType;
  status: OrderStatus;
  pay_method: PayMethod;
  cny_amount: number;
  service_rate: string;
  passage_rate: string;
  deposit_rate: number;
  base_rate: number;
  service_amount: number;
  passage_amount: number;
  deposit_amount: number;
  channel_amount: number;
  merchant_actual_amount: number;
  customer_name: string | null;
  payment_method_id: number | null;
  /** JSON of PaymentMethodSnapshot. */
  payment_method_snapshot: string | null;
  /** JSON of CustomerPaymentMethod. */
  customer_payment_method: string | null;
  alpha_data_enc: string | null;
  pay_token: string | null;
  expires_at: number | null;
  createtime: number;
  updatetime: number;
}

export type NewOrderRow = Omit<OrderRow, 'id' | 'updatetime'>;

/** What an order list shows (the spec's Order resource): 9 of 27 columns, read and decoded per row. */
export const ORDER_SUMMARY_COLUMNS = [
  'id', 'order_no', 'order_type', 'cny_amount', 'merchant_actual_amount', 'service_rate', 'service_amount', 'status', 'createtime', 'updatetime',
] as const satisfies readonly (keyof OrderRow)[];
export type OrderSummaryRow = Pick<OrderRow, (typeof ORDER_SUMMARY_COLUMNS)[number]>;

export interface OrderListFilter {
  merchantId: number;
  status?: OrderStatus | undefined;
  orderType?: OrderType | undefined;
  /** Inclusive bounds on createtime, Unix seconds. */
  startTime?: number | undefined;
  endTime?: number | undefined;
  orderNoPrefix?: string | undefined;
  /** Exactly this order number (console search). */
  orderNoExact?: string | undefined;
  /** Keyset pagination (console export): only rows after this one in list order. */
  before?: { createtime: number; id: number } | undefined;
  /** How a prefix search finds its page; see orderNoPlanFor. Chosen from the match count when absent. */
  orderNoPlan?: OrderNoPlan | undefined;
  offset: number;
  limit: number;
}

const DAY_SECONDS = 86_400;
/** Below this offset a list page skips rows on the index instead of seeking by day counts. */
const DEFAULT_SEEK_FROM_OFFSET = 200;

/**
 * A prefix search either takes the matching range of (merchant_id, order_no)
 * and sorts it ('range': cost grows with the matches), or walks the
 * merchant's orders newest first and keeps the matches ('walk': cost grows
 * with rows per match). Few matches: range; many (a prefix like "B"): walk.
 */
export type OrderNoPlan = 'range' | 'walk';
export const ORDER_NO_WALK_THRESHOLD = 2000;

export function orderNoPlanFor(matches: number): OrderNoPlan {
  return matches > ORDER_NO_WALK_THRESHOLD ? 'walk' : 'range';
}

const ORDER_COLUMNS = [
  'order_no', 'merchant_id', 'channel_id', 'order_type', 'status', 'pay_method', 'cny_amount', 'service_rate',
  'passage_rate', 'deposit_rate', 'base_rate', 'service_amount', 'passage_amount', 'deposit_amount', 'channel_amount',
  'merchant_actual_amount', 'customer_name', 'payment_method_id', 'payment_method_snapshot', 'customer_payment_method',
  'alpha_data_enc', 'pay_token', 'expires_at', 'createtime',
] as const satisfies readonly (keyof NewOrderRow)[];

export function createOrderRepository(db: Database, { seekFromOffset = DEFAULT_SEEK_FROM_OFFSET } = {}) {
  const insert = db.prepare<NewOrderRow>(
    `INSERT INTO orders (${ORDER_COLUMNS.join(', ')}, updatetime)
     VALUES (${ORDER_COLUMNS.map((c) => '@' + c).join(', ')}, @createtime)`,
  );
  const insertReturning = db.prepare<NewOrderRow, OrderRow>(
    `INSERT INTO orders (${ORDER_COLUMNS.join(', ')}, updatetime)
     VALUES (${ORDER_COLUMNS.map((c) => '@' + c).join(', ')}, @createtime) RETURNING *`,
  );
  const byId = db.prepare<[number], OrderRow>('SELECT * FROM orders WHERE id = ?');
  const byNo = db.prepare<[string], OrderRow>('SELECT * FROM orders WHERE order_no = ?');
  const byMerchantAndNo = db.prepare<[number, string], OrderRow>('SELECT * FROM orders WHERE merchant_id = ? AND order_no = ?');
  const byPayToken = db.prepare<[string], OrderRow>('SELECT * FROM orders WHERE pay_token = ?');
  // Compare-and-set: a status moves only from the status it was read in.
  const setStatus = db.prepare<[string, number, number, string]>('UPDATE orders SET status = ?, updatetime = ? WHERE id = ? AND status = ?');
  const pendingExpired = db.prepare<[number, number], OrderRow>(
    `SELECT * FROM orders WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?`,
  );
  const nextExpiry = db.prepare<[], { due: number | null }>(
    `SELECT min(expires_at) AS due FROM orders WHERE status = 'pending' AND expires_at IS NOT NULL`,
  );

  // One statement per combination of filters, prepared on first use: every
  // combination then has an exact index (see migration 0001).
  const listStatements = new Map<string, { page: Statement<unknown[], OrderRow>; count: Statement<unknown[], { n: number }> }>();
  function statementsFor(f: OrderListFilter) {
    const key = [
      f.status !== undefined,
      f.orderType !== undefined,
      f.startTime !== undefined,
      f.endTime !== undefined,
      f.orderNoPrefix !== undefined,
      f.orderNoExact !== undefined,
      f.before !== undefined,
      f.orderNoPlan === 'walk',
    ]
      .map((b) => (b ? '1' : '0'))
      .join('');
    let s = listStatements.get(key);
    if (!s) {
      const byOrderNo = f.orderNoPrefix !== undefined || f.orderNoExact !== undefined;
      const walk = f.orderNoPrefix !== undefined && f.orderNoPlan === 'walk';
      // An order-number search counts on (merchant_id, order_no) (migration
      // 0002) and, unless it walks, pages on it too: the planner would
      // otherwise prefer the index that avoids the sort and walk all the
      // merchant's orders even for a narrow prefix.
      const counted = byOrderNo ? 'orders INDEXED BY orders_m_no' : 'orders';
      const paged = byOrderNo && !walk ? counted : 'orders';
      const where = ['merchant_id = @merchantId'];
      if (f.orderType !== undefined) where.push('order_type = @orderType');
      if (f.status !== undefined) where.push('status = @status');
      if (f.startTime !== undefined) where.push('createtime >= @startTime');
      if (f.endTime !== undefined) where.push('createtime <= @endTime');
      if (f.orderNoExact !== undefined) where.push('order_no = @orderNoExact');
      const prefixTerm = (col: string) => `${col} >= @orderNoPrefix AND ${col} < @orderNoPrefix || '~'`;
      const clause = [...where, ...(f.orderNoPrefix !== undefined ? [prefixTerm('order_no')] : [])].join(' AND ');
      // Walking: unary + keeps the order_no term off every index, so a time index serves the sort.
      const walkClause = [...where, ...(f.orderNoPrefix !== undefined ? [prefixTerm(walk ? '+order_no' : 'order_no')] : [])].join(' AND ');
      const pageClause = f.before !== undefined ? `${walkClause} AND (createtime, id) < (@beforeTime, @beforeId)` : walkClause;
      s = {
        page: db.prepare(`SELECT * FROM ${paged} WHERE ${pageClause} ORDER BY createtime DESC, id DESC LIMIT @limit OFFSET @offset`),
        count: db.prepare(`SELECT count(*) AS n FROM ${counted} WHERE ${clause}`),
      };
      listStatements.set(key, s);
    }
    return s;
  }

  function bind(f: OrderListFilter): Record<string, unknown> {
    const params: Record<string, unknown> = { merchantId: f.merchantId, limit: f.limit, offset: f.offset };
    if (f.status !== undefined) params.status = f.status;
    if (f.orderType !== undefined) params.orderType = f.orderType;
    if (f.startTime !== undefined) params.startTime = f.startTime;
    if (f.endTime !== undefined) params.endTime = f.endTime;
    if (f.orderNoPrefix !== undefined) params.orderNoPrefix = f.orderNoPrefix;
    if (f.orderNoExact !== undefined) params.orderNoExact = f.orderNoExact;
    if (f.before !== undefined) {
      params.beforeTime = f.before.createtime;
      params.beforeId = f.before.id;
    }
    return params;
  }

  // The counter-based form (migration 0004). Statements per combination of
  // the equality filters, prepared on first use.
  interface CountedStatements {
    /** Total without a time filter, from order_totals (at most 8 rows). */
    total: Statement<unknown[], { n: number }>;
    /** Orders per UTC day in [dayLo, dayHi], newest day first, in index order. */
    days: Statement<unknown[], { day: number; n: number }>;
    /** Exact count in a createtime range (the days a time filter cuts). */
    countRange: Statement<unknown[], { n: number }>;
    /** One page: rows at or before `upTo` (and from `startTime`), newest first. */
    page: Statement<unknown[], OrderRow>;
    pageFrom: Statement<unknown[], OrderRow>;
  }
  type ListColumns = 'all' | 'summary';
  const countedStatements = new Map<string, CountedStatements>();
  function countedStatementsFor(f: OrderListFilter, columns: ListColumns): CountedStatements {
    const key = `${f.orderType !== undefined ? 't' : '-'}${f.status !== undefined ? 's' : '-'}${columns}`;
    let s = countedStatements.get(key);
    if (!s) {
      const eq = equalityClauses(f).join(' AND ');
      const select = columns === 'summary' ? ORDER_SUMMARY_COLUMNS.join(', ') : '*';
      s = {
        total: db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM order_totals WHERE ${eq}`),
        days: db.prepare(
          `SELECT day, sum(n) AS n FROM order_counts WHERE ${eq} AND day BETWEEN @dayLo AND @dayHi GROUP BY day ORDER BY day DESC`,
        ),
        countRange: db.prepare(`SELECT count(*) AS n FROM orders WHERE ${eq} AND createtime BETWEEN @lo AND @hi`),
        page: db.prepare(`SELECT ${select} FROM orders WHERE ${eq} AND createtime <= @upTo ORDER BY createtime DESC, id DESC LIMIT @limit OFFSET @offset`),
        pageFrom: db.prepare(
          `SELECT ${select} FROM orders WHERE ${eq} AND createtime BETWEEN @startTime AND @upTo ORDER BY createtime DESC, id DESC LIMIT @limit OFFSET @offset`,
        ),
      };
      countedStatements.set(key, s);
    }
    return s;
  }

  function equalityClauses(f: OrderListFilter): string[] {
    const where = ['merchant_id = @merchantId'];
    if (f.orderType !== undefined) where.push('order_type = @orderType');
    if (f.status !== undefined) where.push('status = @status');
    return where;
  }

  function equalityParams(f: OrderListFilter): Record<string, unknown> {
    const params: Record<string, unknown> = { merchantId: f.merchantId };
    if (f.status !== undefined) params.status = f.status;
    if (f.orderType !== undefined) params.orderType = f.orderType;
    return params;
  }

  /** count(*) and OFFSET over the filter's index: any filter, including order-number search and keyset pages. */
  function naivePage(f: OrderListFilter): { rows: OrderRow[]; total: number } {
    const params = bind(f);
    const total = statementsFor(f).count.get(params)!.n;
    // A prefix search pages by the plan its match count calls for (orderNoPlanFor).
    const planned = f.orderNoPrefix !== undefined && f.orderNoPlan === undefined ? { ...f, orderNoPlan: orderNoPlanFor(total) } : f;
    return { rows: f.limit === 0 ? [] : statementsFor(planned).page.all(params), total };
  }

  /**
   * total and one page without counting or skipping over the whole match.
   * The matching orders fall into UTC days; the counters say how many each
   * day holds, so the page can start inside the day that holds row number
   * `offset` (newest first) and OFFSET skips at most one day's rows.
   *  - No time filter: total from order_totals; days are read newest first
   *    only until the one holding `offset`.
   *  - With a time filter: the days inside it are read from order_counts; a
   *    day the filter cuts (at most the two ends) is counted exactly on the
   *    index, over that part only.
   */
  function countedList(f: OrderListFilter, columns: ListColumns = 'all'): { rows: OrderRow[]; total: number } {
    const s = countedStatementsFor(f, columns);
    const eq = equalityParams(f);
    const start = f.startTime;
    const end = f.endTime;
    let total = 0;
    /** The newest createtime of the segment holding row `offset`, and how many rows come before it. */
    let seek: { upTo: number; before: number } | undefined;

    if (start === undefined && end === undefined) {
      total = s.total.get(eq)!.n;
      if (f.offset >= total) return { rows: [], total };
      let before = 0;
      if (f.offset < seekFromOffset) {
        // Near the top, stepping over OFFSET index entries is cheaper than reading the days.
        seek = { upTo: Number.MAX_SAFE_INTEGER, before: 0 };
      } else {
        for (const { day, n } of s.days.iterate({ ...eq, dayLo: 0, dayHi: Number.MAX_SAFE_INTEGER })) {
          if (before + n > f.offset) {
            seek = { upTo: day * DAY_SECONDS + DAY_SECONDS - 1, before };
            break; // ends the iteration (the statement is reset)
          }
          before += n;
        }
      }
    } else {
      const days = s.days.all({
        ...eq,
        dayLo: start === undefined ? 0 : Math.floor(start / DAY_SECONDS),
        dayHi: end === undefined ? Number.MAX_SAFE_INTEGER : Math.floor(end / DAY_SECONDS),
      });
      for (const { day, n: dayCount } of days) {
        const lo = day * DAY_SECONDS;
        const hi = lo + DAY_SECONDS - 1;
        const cutLo = start !== undefined && start > lo;
        const cutHi = end !== undefined && end < hi;
        const upTo = cutHi ? end : hi;
        const n = !cutLo && !cutHi ? dayCount : partialDayCount(s, eq, { lo, hi, from: cutLo ? start : lo, to: upTo, dayCount });
        if (seek === undefined && total + n > f.offset) seek = { upTo, before: total };
        total += n;
      }
    }
    // Counters out of step with the rows would be a bug; answer correctly anyway.
    if (seek === undefined) return f.offset >= total ? { rows: [], total } : naivePage(f);
    const params = { ...eq, upTo: seek.upTo, limit: f.limit, offset: f.offset - seek.before };
    const rows = start === undefined ? s.page.all(params) : s.pageFrom.all({ ...params, startTime: start });
    return { rows, total };
  }

  /**
   * Orders of one day inside [from, to] (a time filter cuts the day): counted
   * on the index over the part inside, or over the part outside and taken
   * from the day's count, whichever part is shorter.
   */
  function partialDayCount(
    s: CountedStatements,
    eq: Record<string, unknown>,
    d: { lo: number; hi: number; from: number; to: number; dayCount: number },
  ): number {
    const inside = d.to - d.from;
    if (d.from > d.lo && d.to < d.hi) return s.countRange.get({ ...eq, lo: d.from, hi: d.to })!.n;
    if (d.from > d.lo && d.from - d.lo < inside) return d.dayCount - s.countRange.get({ ...eq, lo: d.lo, hi: d.from - 1 })!.n;
    if (d.to < d.hi && d.hi - d.to < inside) return d.dayCount - s.countRange.get({ ...eq, lo: d.to + 1, hi: d.hi })!.n;
    return s.countRange.get({ ...eq, lo: d.from, hi: d.to })!.n;
  }

  // One read transaction: total and page come from the same snapshot even if
  // this ever runs on a connection other than the writer's.
  const countedListInSnapshot = db.transaction(countedList);

  return {
    insert(row: NewOrderRow): number {
      return Number(insert.run(row).lastInsertRowid);
    },
    /** Inserts and returns the stored row in one statement (no second lookup). */
    insertReturning(row: NewOrderRow): OrderRow {
      return insertReturning.get(row)!;
    },
    findById(id: number): OrderRow | undefined {
      return byId.get(id);
    },
    findByNo(orderNo: string): OrderRow | undefined {
      return byNo.get(orderNo);
    },
    /** Another merchant's order is indistinguishable from a missing one. */
    findForMerchant(merchantId: number, orderNo: string): OrderRow | undefined {
      return byMerchantAndNo.get(merchantId, orderNo);
    },
    findByPayToken(token: string): OrderRow | undefined {
      return byPayToken.get(token);
    },
    /** Moves the status only if it is still `from`; false when someone else moved it first. */
    updateStatus(id: number, from: OrderStatus, to: OrderStatus, now: number): boolean {
      return setStatus.run(to, now, id, from).changes === 1;
    },
    /** Pending orders whose deadline has passed, oldest deadline first. */
    pendingExpired(now: number, limit: number): OrderRow[] {
      return pendingExpired.all(now, limit);
    },
    nextExpiry(): number | null {
      return nextExpiry.get()!.due;
    },
    /**
     * Newest first (createtime, then id, descending) with the exact total.
     * The merchant API's filters (status, order_type, time range) go through
     * the counters; order-number search and keyset pages count on the index.
     */
    list(filter: OrderListFilter): { rows: OrderRow[]; total: number } {
      const counted = filter.orderNoPrefix === undefined && filter.orderNoExact === undefined && filter.before === undefined;
      return counted ? countedListInSnapshot(filter) : naivePage(filter);
    },
    /** list() with only the summary columns (the merchant API's orderQueryList). */
    listSummaries(filter: OrderListFilter): { rows: OrderSummaryRow[]; total: number } {
      const counted = filter.orderNoPrefix === undefined && filter.orderNoExact === undefined && filter.before === undefined;
      if (!counted) return naivePage(filter);
      // Inside a transaction already (the merchant API's group-commit batch) the snapshot is given.
      return db.inTransaction ? countedList(filter, 'summary') : countedListInSnapshot(filter, 'summary');
    },
    /** The same answer by count(*) and OFFSET: the reference for tests and benchmarks. */
    listNaive(filter: OrderListFilter): { rows: OrderRow[]; total: number } {
      return naivePage(filter);
    },
    /** One page without the count (keyset pages after the first). */
    page(filter: OrderListFilter): OrderRow[] {
      return statementsFor(filter).page.all(bind(filter));
    },
  };
}
export type OrderRepository = ReturnType<typeof createOrderRepository>;
