import { LIST_DEFAULT_LIMIT, LIST_PAGE_SIZES, ORDER_TYPES, type OrderStatus, type OrderType, type PayMethod } from '../../src-shared/constants';
import { isUniqueViolation, type Dialect, type ReadTx, type WriteTx } from '../store/store';
import { consumeNonce, sqliteDeleteNonce, sqliteInsertNonce, sqliteNonceValues } from './nonce-repository';

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
  /** Where the payer of a buy order goes, as its channel driver said (migration 0008); null for sells. */
  pay_url: string | null;
  expires_at: number | null;
  createtime: number;
  updatetime: number;
}

export type NewOrderRow = Omit<OrderRow, 'id' | 'updatetime'>;

/**
 * The row as stored by an insert: the new row, its id, and updatetime = createtime. Spread first, then the two
 * members: V8 copies such a literal in one step, where one with a member before the spread (`{ id, ...row }`)
 * defines every member one by one (33 against 406 ns for an order row, Node 24).
 */
function storedRow(row: NewOrderRow, id: number): OrderRow {
  return { ...row, id, updatetime: row.createtime };
}

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
/** Days read first when seeking a deep page without a time filter; each further read takes four times as many. */
const FIRST_DAYS_CHUNK = 8;

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
  'alpha_data_enc', 'pay_token', 'pay_url', 'expires_at', 'createtime',
] as const satisfies readonly (keyof NewOrderRow)[];

/**
 * What a request verified without a lookup (the merchant, and the channel,
 * as an earlier request read them) stakes on those rows: the row generation
 * they were read at (migrations 0010 and 0011: any change to merchants,
 * merchant_channels or channels gives a new one), which the unit of its own
 * checks, and the nonce it consumes.
 */
export interface MerchantClaim {
  apiKey: string;
  nonce: string;
  /** When the nonce may be purged (Unix seconds). */
  nonceExpiresAt: number;
  merchantId: number;
  /** The row generation the merchant was read at. */
  generation: string;
}

/**
 * A buy order's claim: also the merchant's link to the channel (and the
 * channel), as read at `linkGeneration`. The link was there then, so it is
 * still there while the generation is unchanged: the unit checks the
 * generation, not the link again.
 */
export interface CurrentRowsClaim extends MerchantClaim {
  channelId: number;
  linkGeneration: string;
}

/**
 * Nothing was written. 'declined': the claim does not hold (the rows'
 * generation moved on since they were read, or the nonce is used: one
 * statement on PostgreSQL cannot tell the two apart without costing every
 * request), so the unit of work decides, and refuses a replay; 'taken': the
 * order number or pay token was (try another).
 */
export type AloneInsertRefusal = 'declined' | 'taken';
/** Nothing was recorded: 'declined', as for AloneInsertRefusal. */
export type AloneReadRefusal = 'declined';

export function createOrderRepository({ seekFromOffset = DEFAULT_SEEK_FROM_OFFSET } = {}) {
  // Positional parameters and only the id back: the stored row is exactly the values given (every
  // column is set here), so it is built from them instead of read back (docs/benchmarks.md).
  const INSERT = `INSERT INTO orders (${ORDER_COLUMNS.join(', ')}, updatetime)
     VALUES (${ORDER_COLUMNS.map(() => '?').join(', ')}, ?) ON CONFLICT DO NOTHING RETURNING id`;
  // The request's nonce, recorded only while the row generation is the claim's and the nonce unused (one
  // primary-key read: a join of the three rows' xmin cost PostgreSQL about 20 µs more per order,
  // docs/benchmarks.md); no row inserted is the claim declined. This is PostgreSQL's; SQLite's files the nonce by
  // bucket (migration 0012).
  const NONCE_IF_CURRENT = `INSERT INTO nonces (api_key, nonce, expires_at)
       SELECT ?, ?, ? FROM row_generation WHERE id = 1 AND generation = ? ON CONFLICT DO NOTHING`;
  // SQLite: the nonce statement, then the order (a unit of its own in the batch, which holds the write lock,
  // so nothing changes between its statements).
  const NONCE_IF_CURRENT_SQLITE = sqliteInsertNonce({ ifGeneration: true });
  // WriteTx.aloneFacts: the row generation a unit of this transaction found current, by NONCE_IF_CURRENT_SQLITE.
  const CURRENT_GENERATION = 'orders.current-generation';
  // PostgreSQL: one statement, its own transaction: the order only with the nonce. An order number or pay token
  // taken fails the whole statement, nonce included (ON CONFLICT there would keep the nonce alone).
  const INSERT_WITH_NONCE_IF_CURRENT_POSTGRES = `WITH n AS (${NONCE_IF_CURRENT} RETURNING 1)
     INSERT INTO orders (${ORDER_COLUMNS.join(', ')}, updatetime) SELECT ${ORDER_COLUMNS.map(() => '?').join(', ')}, ? FROM n RETURNING id`;
  // Oldest deadline first; PostgreSQL: rows another instance's sweep holds are left to it.
  const PENDING_EXPIRED = `SELECT * FROM orders WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?`;
  const PENDING_EXPIRED_POSTGRES = `${PENDING_EXPIRED} FOR UPDATE SKIP LOCKED`;

  // The status filter as an expression, not a bare parameter: SQLite would
  // test a bare one against the partial index on pending orders (migration
  // 0003's orders_pending_by_expiry) and compile the statement again at
  // every run to do so (docs/benchmarks.md, "Statements compiled again").
  const STATUS_TERM = 'status = CAST(@status AS TEXT)';
  const PLANNED_FIRST_PAGES: ReadonlySet<number> = new Set([LIST_DEFAULT_LIMIT, ...LIST_PAGE_SIZES]);

  // One statement per combination of filters, prepared on first use: every
  // combination then has an exact index (see migration 0001).
  const listStatements = new Map<string, { page: string; count: string }>();
  function statementsFor(dialect: Dialect, f: OrderListFilter) {
    const key = dialect + [
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
      const counted = byOrderNo && dialect === 'sqlite' ? 'orders INDEXED BY orders_m_no' : 'orders';
      const paged = byOrderNo && !walk ? counted : 'orders';
      const where = equalityClauses(f);
      if (f.startTime !== undefined) where.push('createtime >= @startTime');
      if (f.endTime !== undefined) where.push('createtime <= @endTime');
      if (f.orderNoExact !== undefined) where.push('order_no = @orderNoExact');
      const prefixTerm = (col: string) => `${col} >= @orderNoPrefix AND ${col} < @orderNoPrefix || '~'`;
      const clause = [...where, ...(f.orderNoPrefix !== undefined ? [prefixTerm('order_no')] : [])].join(' AND ');
      // Walking: unary + keeps the order_no term off every SQLite index, so a time index serves the sort
      // (PostgreSQL's planner chooses by its statistics).
      const walkClause = [...where, ...(f.orderNoPrefix !== undefined ? [prefixTerm(walk && dialect === 'sqlite' ? '+order_no' : 'order_no')] : [])].join(' AND ');
      const pageClause = f.before !== undefined ? `${walkClause} AND (createtime, id) < (@beforeTime, @beforeId)` : walkClause;
      s = {
        page: `SELECT * FROM ${paged} WHERE ${pageClause} ORDER BY createtime DESC, id DESC LIMIT @limit OFFSET @offset`,
        count: `SELECT count(*) AS n FROM ${counted} WHERE ${clause}`,
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
    total: string;
    /** Orders per UTC day in [dayLo, dayHi], newest day first, in index order. */
    days: string;
    /** The same, only the newest @limit days (read in growing chunks until the page's day is found). */
    newestDays: string;
    /** Exact count in a createtime range (the days a time filter cuts). */
    countRange: string;
    /** Orders of the whole days in [dayLo, dayHi] (a one-sided time filter near the top: oneSidedTotal). */
    sumDays: string;
    /** The first and the last day with a counter row (n may be 0). */
    firstDay: string;
    lastDay: string;
    /** One page: rows at or before `upTo` (and from `startTime`), newest first. */
    page: string;
    pageFrom: string;
    /**
     * PostgreSQL: the total and a page near the top (no time filter) in one
     * round trip; one row of nulls but the total when the page is empty.
     * `slice` is `LIMIT @limit OFFSET @offset`, or a first page's literal
     * LIMIT (firstPageSlice).
     */
    totalAndTopPage(slice: string): string;
    /**
     * PostgreSQL, with a time filter: the same in one round trip. The total is
     * the counts of the whole days inside [fullLo, fullHi] plus exact counts
     * over the (at most two) cut parts; an unused range has lo > hi.
     */
    rangedTotalAndTopPage(slice: string): string;
  }
  type ListColumns = 'all' | 'summary';
  /**
   * A statement text per key (a page slice, an inner statement), built once: the same string object each
   * time, so the store finds its prepared statement without hashing a new kilobyte of SQL per request.
   */
  function textBuiltOnce(build: (key: string) => string): (key: string) => string {
    const texts = new Map<string, string>();
    return (key) => {
      let text = texts.get(key);
      if (text === undefined) texts.set(key, (text = build(key)));
      return text;
    };
  }

  const countedStatements = new Map<string, CountedStatements>();
  function countedStatementsFor(f: OrderListFilter, columns: ListColumns): CountedStatements {
    // The same text on both engines.
    const key = `${f.orderType !== undefined ? 't' : '-'}${f.status !== undefined ? 's' : '-'}${columns}`;
    let s = countedStatements.get(key);
    if (!s) {
      const eq = equalityClauses(f).join(' AND ');
      const select = columns === 'summary' ? ORDER_SUMMARY_COLUMNS.join(', ') : '*';
      s = {
        total: `SELECT coalesce(sum(n), 0) AS n FROM order_totals WHERE ${eq}`,
        days: `SELECT day, sum(n) AS n FROM order_counts WHERE ${eq} AND day BETWEEN @dayLo AND @dayHi GROUP BY day ORDER BY day DESC`,
        newestDays: `SELECT day, sum(n) AS n FROM order_counts WHERE ${eq} AND day <= @dayHi GROUP BY day ORDER BY day DESC LIMIT @limit`,
        countRange: `SELECT count(*) AS n FROM orders WHERE ${eq} AND createtime BETWEEN @lo AND @hi`,
        sumDays: `SELECT coalesce(sum(n), 0) AS n FROM order_counts WHERE ${eq} AND day BETWEEN @dayLo AND @dayHi`,
        // min() and max() apart: SQLite reads each from one end of the index only when it is alone in its statement.
        firstDay: `SELECT min(day) AS day FROM order_counts WHERE ${eq}`,
        lastDay: `SELECT max(day) AS day FROM order_counts WHERE ${eq}`,
        page: `SELECT ${select} FROM orders WHERE ${eq} AND createtime <= @upTo ORDER BY createtime DESC, id DESC LIMIT @limit OFFSET @offset`,
        pageFrom: `SELECT ${select} FROM orders WHERE ${eq} AND createtime BETWEEN @startTime AND @upTo ORDER BY createtime DESC, id DESC LIMIT @limit OFFSET @offset`,
        totalAndTopPage: textBuiltOnce((slice) => `SELECT t.n AS list_total, o.* FROM (SELECT coalesce(sum(n), 0) AS n FROM order_totals WHERE ${eq}) AS t
          LEFT JOIN LATERAL (SELECT ${select} FROM orders WHERE ${eq} ORDER BY createtime DESC, id DESC ${slice}) AS o ON true`),
        rangedTotalAndTopPage: textBuiltOnce((slice) => `SELECT t.n AS list_total, o.* FROM (SELECT
            ${wholeDaysSum(f, eq)}
            + (SELECT count(*) FROM orders WHERE ${eq} AND createtime BETWEEN @cut1Lo AND @cut1Hi)
            + (SELECT count(*) FROM orders WHERE ${eq} AND createtime BETWEEN @cut2Lo AND @cut2Hi) AS n) AS t
          LEFT JOIN LATERAL (SELECT ${select} FROM orders WHERE ${eq} AND createtime BETWEEN @startTime AND @upTo
            ORDER BY createtime DESC, id DESC ${slice}) AS o ON true`),
      };
      countedStatements.set(key, s);
    }
    return s;
  }

  /** PostgreSQL: the total and a page near the top in one statement (countedList; with a nonce, listSummariesWithNonceIfCurrent). */
  function topPageStatement(f: OrderListFilter, columns: ListColumns): { sql: string; params: Record<string, unknown> } {
    const s = countedStatementsFor(f, columns);
    const slice = firstPageSlice(f) ?? 'LIMIT @limit OFFSET @offset';
    const page = { ...equalityParams(f), limit: f.limit, offset: f.offset };
    return f.startTime === undefined && f.endTime === undefined
      ? { sql: s.totalAndTopPage(slice), params: page }
      : { sql: s.rangedTotalAndTopPage(slice), params: { ...page, ...rangedTotalParams(f.startTime, f.endTime) } };
  }

  /** A top page's statement that also records the nonce while the row generation is the claim's (one text per page statement). */
  const withNonceIfCurrent = textBuiltOnce(
    (sql) => `WITH n AS (INSERT INTO nonces (api_key, nonce, expires_at)
             SELECT @claimApiKey, @claimNonce, @claimNonceExpiresAt FROM row_generation WHERE id = 1 AND generation = @claimGeneration
             ON CONFLICT DO NOTHING RETURNING 1)
         SELECT (SELECT count(*) FROM n) AS nonce_fresh, l.* FROM (${sql}) AS l`,
  );

  /** The rows and total of topPageStatement's answer (one row of nulls but the total when the page is empty). */
  function topPageOf(joined: (OrderRow & { list_total: number })[]): { rows: OrderRow[]; total: number } {
    const rows: OrderRow[] = [];
    for (const { list_total: _, ...row } of joined) if (row.id !== null) rows.push(row);
    return { rows, total: joined[0]!.list_total };
  }

  /** A list a unit of its own answers (PostgreSQL: countedList's one statement): counted, near the top. */
  function listsInOneStatement(f: OrderListFilter): boolean {
    return f.orderNoPrefix === undefined && f.orderNoExact === undefined && f.before === undefined && f.offset < seekFromOffset;
  }

  /**
   * PostgreSQL plans a prepared statement whose LIMIT or OFFSET is a
   * parameter again at every run (its plan for an unknown LIMIT assumes a
   * tenth of the rows, so the plan for the actual value always looks
   * cheaper): the list's page 1 took 276 instead of 153 µs per run on
   * 1,000,000 orders (docs/benchmarks.md, "Statements compiled again").
   * The first page of the usual sizes is therefore its own statement, with
   * the LIMIT written out, which keeps one plan; a handful of texts, not one
   * per request (any other page or size still passes parameters).
   */
  function firstPageSlice(f: OrderListFilter): string | undefined {
    return f.offset === 0 && PLANNED_FIRST_PAGES.has(f.limit) ? `LIMIT ${f.limit}` : undefined;
  }

  function equalityClauses(f: OrderListFilter): string[] {
    const where = ['merchant_id = @merchantId'];
    if (f.orderType !== undefined) where.push('order_type = @orderType');
    if (f.status !== undefined) where.push(STATUS_TERM);
    return where;
  }

  /**
   * rangedTotalAndTopPage's sum over whole days (eq: the filter's equality
   * clauses). Without a type or status filter it is one sum per order type,
   * the same text with the type added: PostgreSQL's cached (generic) plan
   * for `merchant_id = $1 AND day BETWEEN $2 AND $3` took the primary key and
   * read the counters' rows from the table (64–69 pages for a merchant's 90
   * days on 1,000,000 orders), where the (merchant_id, order_type, day, n)
   * index answers each type's sum from its entries alone (3–4 pages). Naming
   * the types as `order_type IN (…)` did the same, but tipped PostgreSQL
   * into planning the statement again at every run in three of the four
   * orders of requests tried (docs/benchmarks.md, "Midday on 2026-11-30").
   * The counters hold no other type: they count orders.
   */
  function wholeDaysSum(f: OrderListFilter, eq: string): string {
    const sum = (where: string) => `(SELECT coalesce(sum(n), 0) FROM order_counts WHERE ${where} AND day BETWEEN @fullLo AND @fullHi)`;
    if (f.orderType !== undefined || f.status !== undefined) return sum(eq);
    return ORDER_TYPES.map((t) => sum(`${eq} AND order_type = ${t}`)).join(' + ');
  }

  function equalityParams(f: OrderListFilter): Record<string, unknown> {
    const params: Record<string, unknown> = { merchantId: f.merchantId };
    if (f.status !== undefined) params.status = f.status;
    if (f.orderType !== undefined) params.orderType = f.orderType;
    return params;
  }

  /** count(*) and OFFSET over the filter's index: any filter, including order-number search and keyset pages. */
  async function naivePage(tx: ReadTx, f: OrderListFilter): Promise<{ rows: OrderRow[]; total: number }> {
    const params = bind(f);
    const total = (await tx.get<{ n: number }>(statementsFor(tx.dialect, f).count, params))!.n;
    // A prefix search pages by the plan its match count calls for (orderNoPlanFor).
    const planned = f.orderNoPrefix !== undefined && f.orderNoPlan === undefined ? { ...f, orderNoPlan: orderNoPlanFor(total) } : f;
    return { rows: f.limit === 0 ? [] : await tx.all<OrderRow>(statementsFor(tx.dialect, planned).page, params), total };
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
  async function countedList(tx: ReadTx, f: OrderListFilter, columns: ListColumns = 'all'): Promise<{ rows: OrderRow[]; total: number }> {
    const s = countedStatementsFor(f, columns);
    const eq = equalityParams(f);
    const start = f.startTime;
    const end = f.endTime;
    let total = 0;
    /** The newest createtime of the segment holding row `offset`, and how many rows come before it. */
    let seek: { upTo: number; before: number } | undefined;

    if (f.offset < seekFromOffset && tx.dialect === 'postgres') {
      // Near the top on PostgreSQL: the total and the page in one round trip instead of two to five
      // (SQLite runs its statements inside its batch, microseconds each).
      const { sql, params } = topPageStatement(f, columns);
      return topPageOf(await tx.all<OrderRow & { list_total: number }>(sql, params));
    }
    if (start === undefined && end === undefined) {
      total = (await tx.get<{ n: number }>(s.total, eq))!.n;
      if (f.offset >= total) return { rows: [], total };
      let before = 0;
      if (f.offset < seekFromOffset) {
        // Near the top, stepping over OFFSET index entries is cheaper than reading the days.
        seek = { upTo: Number.MAX_SAFE_INTEGER, before: 0 };
      } else {
        // Newest days first, only until the one holding `offset`: a few days' counts, not the whole history
        // (reading every day cost a deep page more than its OFFSET did; docs/benchmarks.md).
        let dayHi = Number.MAX_SAFE_INTEGER;
        for (let chunk = FIRST_DAYS_CHUNK; seek === undefined; chunk *= 4) {
          const days = await tx.all<{ day: number; n: number }>(s.newestDays, { ...eq, dayHi, limit: chunk });
          for (const { day, n } of days) {
            if (before + n > f.offset) {
              seek = { upTo: day * DAY_SECONDS + DAY_SECONDS - 1, before };
              break;
            }
            before += n;
          }
          if (days.length < chunk) break;
          dayHi = days[days.length - 1]!.day - 1;
        }
      }
    } else if (f.offset < seekFromOffset && (start === undefined || end === undefined)) {
      // One bound, near the top: counted over the shorter side of its day (oneSidedTotal); the page steps over
      // OFFSET index entries from the bound, as the unfiltered page does from the newest.
      total = await oneSidedTotal(tx, s, eq, start, end);
      seek = { upTo: end ?? Number.MAX_SAFE_INTEGER, before: 0 };
    } else {
      const days = await tx.all<{ day: number; n: number }>(s.days, {
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
        const n = !cutLo && !cutHi ? dayCount : await partialDayCount(tx, s, eq, { lo, hi, from: cutLo ? start : lo, to: upTo, dayCount });
        if (seek === undefined && total + n > f.offset) seek = { upTo, before: total };
        total += n;
      }
    }
    // Counters out of step with the rows would be a bug; answer correctly anyway.
    if (seek === undefined) return f.offset >= total ? { rows: [], total } : naivePage(tx, f);
    const params = { ...eq, upTo: seek.upTo, limit: f.limit, offset: f.offset - seek.before };
    const rows = start === undefined ? await tx.all<OrderRow>(s.page, params) : await tx.all<OrderRow>(s.pageFrom, { ...params, startTime: start });
    return { rows, total };
  }

  /**
   * rangedTotalAndTopPage's bounds for [start, end] (either may be absent):
   * the whole UTC days inside, and the parts of the (at most two) days the
   * range cuts, to be counted exactly.
   */
  function rangedTotalParams(start: number | undefined, end: number | undefined): Record<string, number> {
    const from = start ?? -Number.MAX_SAFE_INTEGER;
    const to = end ?? Number.MAX_SAFE_INTEGER;
    const none = { lo: 1, hi: 0 };
    const dayLo = Math.floor(from / DAY_SECONDS);
    const dayHi = Math.floor(to / DAY_SECONDS);
    const cutLo = start !== undefined && start > dayLo * DAY_SECONDS;
    const cutHi = end !== undefined && end < dayHi * DAY_SECONDS + DAY_SECONDS - 1;
    let full = { lo: dayLo + (cutLo ? 1 : 0), hi: dayHi - (cutHi ? 1 : 0) };
    let cut1 = none;
    let cut2 = none;
    if (from > to) {
      full = none; // an empty range: nothing to count
    } else if (dayLo === dayHi && (cutLo || cutHi)) {
      full = none;
      cut1 = { lo: from, hi: to };
    } else {
      if (cutLo) cut1 = { lo: from, hi: dayLo * DAY_SECONDS + DAY_SECONDS - 1 };
      if (cutHi) cut2 = { lo: dayHi * DAY_SECONDS, hi: to };
    }
    return {
      fullLo: full.lo,
      fullHi: full.hi,
      cut1Lo: cut1.lo,
      cut1Hi: cut1.hi,
      cut2Lo: cut2.lo,
      cut2Hi: cut2.hi,
      startTime: from,
      upTo: to,
    };
  }

  /**
   * The total for a time filter with one bound (start_time alone or end_time
   * alone). Reading every day's counters on the bound's side, as a range
   * does, reads on average half the history (about 120 µs on 1,000,000
   * orders for end_time alone; docs/benchmarks.md). The bound's day splits
   * the days: the side with fewer of them is read, and the other one is the
   * filter's total (order_totals) less it; the bound's own day is cut
   * exactly (partialDayCount).
   */
  async function oneSidedTotal(tx: ReadTx, s: CountedStatements, eq: Record<string, unknown>, start: number | undefined, end: number | undefined): Promise<number> {
    const bound = (start ?? end)!;
    const day = Math.floor(bound / DAY_SECONDS);
    const lo = day * DAY_SECONDS;
    const hi = lo + DAY_SECONDS - 1;
    const first = (await tx.get<{ day: number | null }>(s.firstDay, eq))!.day;
    const last = (await tx.get<{ day: number | null }>(s.lastDay, eq))!.day;
    if (first === null || last === null) return 0;
    const sum = async (dayLo: number, dayHi: number) => (dayLo > dayHi ? 0 : (await tx.get<{ n: number }>(s.sumDays, { ...eq, dayLo, dayHi }))!.n);
    const dayCount = first <= day && day <= last ? await sum(day, day) : 0;
    // The bound's day inside the filter: [start, hi] for start_time, [lo, end] for end_time.
    const from = start === undefined ? lo : start;
    const to = start === undefined ? end! : hi;
    const dayInside = dayCount === 0 || (from === lo && to === hi) ? dayCount : await partialDayCount(tx, s, eq, { lo, hi, from, to, dayCount });
    // The whole days inside the filter: after the bound's day for start_time, before it for end_time.
    const [inLo, inHi, outLo, outHi] = start === undefined ? [first, day - 1, day + 1, last] : [day + 1, last, first, day - 1];
    if (Math.max(0, inHi - inLo + 1) <= Math.max(0, outHi - outLo + 1)) return (await sum(inLo, inHi)) + dayInside;
    const all = (await tx.get<{ n: number }>(s.total, eq))!.n;
    return all - (await sum(outLo, outHi)) - (dayCount - dayInside);
  }

  /**
   * Orders of one day inside [from, to] (a time filter cuts the day): counted
   * on the index over the part inside, or over the part outside and taken
   * from the day's count, whichever part is shorter.
   */
  async function partialDayCount(
    tx: ReadTx,
    s: CountedStatements,
    eq: Record<string, unknown>,
    d: { lo: number; hi: number; from: number; to: number; dayCount: number },
  ): Promise<number> {
    const count = async (lo: number, hi: number) => (await tx.get<{ n: number }>(s.countRange, { ...eq, lo, hi }))!.n;
    const inside = d.to - d.from;
    if (d.from > d.lo && d.to < d.hi) return count(d.from, d.to);
    if (d.from > d.lo && d.from - d.lo < inside) return d.dayCount - (await count(d.lo, d.from - 1));
    if (d.to < d.hi && d.hi - d.to < inside) return d.dayCount - (await count(d.to + 1, d.hi));
    return count(d.from, d.to);
  }

  /** SQLite: records the claim's nonce while the claim holds; false when it does not (the generation moved on, or the nonce is used). */
  async function sqliteNonceIfCurrent(tx: WriteTx, claim: MerchantClaim): Promise<boolean> {
    // An earlier unit of writeAlone in this batch's transaction found the claim's generation current, and
    // nothing can have replaced it since (WriteTx.aloneFacts): the nonce alone. Reading the generation at every
    // unit cost a list request about 3 µs of its 125 (docs/benchmarks.md, "Late evening on 2026-11-30").
    if (tx.aloneFacts?.get(CURRENT_GENERATION) === claim.generation) return consumeNonce(tx, claim.apiKey, claim.nonce, claim.nonceExpiresAt);
    const recorded = (await tx.run(NONCE_IF_CURRENT_SQLITE, sqliteNonceValues(claim.apiKey, claim.nonce, claim.nonceExpiresAt, claim.generation))) === 1;
    // Recorded: the generation was the claim's (a used nonce or a moved generation tells nothing).
    if (recorded) tx.aloneFacts?.set(CURRENT_GENERATION, claim.generation);
    return recorded;
  }

  /**
   * Inserts and returns the stored row in one statement (no second lookup);
   * undefined when the order number (or pay token) is taken, so the caller
   * retries with another without aborting its unit of work.
   */
  async function insertReturning(tx: WriteTx, row: NewOrderRow): Promise<OrderRow | undefined> {
    const values: unknown[] = ORDER_COLUMNS.map((c) => row[c]);
    values.push(row.createtime);
    const inserted = await tx.get<{ id: number }>(INSERT, values);
    return inserted && storedRow(row, inserted.id);
  }

  return {
    insertReturning,
    /**
     * The nonce and the order, written only while the row generation is the
     * claim's and the nonce unused (a unit of work of its own:
     * Store.writeAlone; PostgreSQL in one statement). Either both are stored
     * or nothing is.
     */
    async insertWithNonceIfCurrent(tx: WriteTx, claim: CurrentRowsClaim, row: NewOrderRow): Promise<OrderRow | AloneInsertRefusal> {
      // An order of other rows than the claim's, or a merchant and a link read at two generations: the claim says
      // nothing of them (the unit of work reads both again).
      if (row.merchant_id !== claim.merchantId || row.channel_id !== claim.channelId || claim.linkGeneration !== claim.generation) return 'declined';
      if (tx.dialect === 'sqlite') {
        if (!(await sqliteNonceIfCurrent(tx, claim))) return 'declined';
        const inserted = await insertReturning(tx, row);
        if (inserted) return inserted;
        // A number or token taken (rare): nothing of this attempt stays, so the next one records the nonce afresh.
        await sqliteDeleteNonce(tx, claim.apiKey, claim.nonce, claim.nonceExpiresAt);
        return 'taken';
      }
      const values: unknown[] = [claim.apiKey, claim.nonce, claim.nonceExpiresAt, claim.generation];
      for (const c of ORDER_COLUMNS) values.push(row[c]);
      values.push(row.createtime);
      let stored: { id: number } | undefined;
      try {
        stored = await tx.get<{ id: number }>(INSERT_WITH_NONCE_IF_CURRENT_POSTGRES, values);
      } catch (err) {
        if (isUniqueViolation(err)) return 'taken';
        throw err;
      }
      return stored ? storedRow(row, stored.id) : 'declined';
    },
    findById(tx: ReadTx, id: number): Promise<OrderRow | undefined> {
      return tx.get('SELECT * FROM orders WHERE id = ?', [id]);
    },
    /** The row, locked until the end of the unit of work (PostgreSQL; SQLite's writer is alone anyway). */
    findByIdForUpdate(tx: WriteTx, id: number): Promise<OrderRow | undefined> {
      return tx.get(`SELECT * FROM orders WHERE id = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [id]);
    },
    findByNo(tx: ReadTx, orderNo: string): Promise<OrderRow | undefined> {
      return tx.get('SELECT * FROM orders WHERE order_no = ?', [orderNo]);
    },
    /** Another merchant's order is indistinguishable from a missing one. */
    findForMerchant(tx: ReadTx, merchantId: number, orderNo: string): Promise<OrderRow | undefined> {
      return tx.get('SELECT * FROM orders WHERE merchant_id = ? AND order_no = ?', [merchantId, orderNo]);
    },
    findByPayToken(tx: ReadTx, token: string): Promise<OrderRow | undefined> {
      return tx.get('SELECT * FROM orders WHERE pay_token = ?', [token]);
    },
    /** Moves the status only if it is still `from` (compare-and-set); false when someone else moved it first. */
    async updateStatus(tx: WriteTx, id: number, from: OrderStatus, to: OrderStatus, now: number): Promise<boolean> {
      return (await tx.run('UPDATE orders SET status = ?, updatetime = ? WHERE id = ? AND status = ?', [to, now, id, from])) === 1;
    },
    /** Pending orders whose deadline has passed, oldest deadline first (locked for the sweep on PostgreSQL). */
    pendingExpired(tx: WriteTx, now: number, limit: number): Promise<OrderRow[]> {
      return tx.all(tx.dialect === 'postgres' ? PENDING_EXPIRED_POSTGRES : PENDING_EXPIRED, [now, limit]);
    },
    async nextExpiry(tx: ReadTx): Promise<number | null> {
      const row = await tx.get<{ due: number | null }>(`SELECT min(expires_at) AS due FROM orders WHERE status = 'pending' AND expires_at IS NOT NULL`);
      return row?.due ?? null;
    },
    /**
     * Newest first (createtime, then id, descending) with the exact total.
     * The merchant API's filters (status, order_type, time range) go through
     * the counters; order-number search and keyset pages count on the index.
     */
    list(tx: ReadTx, filter: OrderListFilter): Promise<{ rows: OrderRow[]; total: number }> {
      const counted = filter.orderNoPrefix === undefined && filter.orderNoExact === undefined && filter.before === undefined;
      return counted ? countedList(tx, filter) : naivePage(tx, filter);
    },
    /** list() with only the summary columns (the merchant API's orderQueryList). */
    /**
     * listSummaries with the request's nonce, recorded only while the row
     * generation is the claim's and the nonce unused (a unit of work of its
     * own: Store.writeAlone, which writes last; PostgreSQL in one
     * statement), made into the answer by `present`. Only a page near the top
     * without order-number search or keyset (listsInOneStatement).
     */
    async listSummariesWithNonceIfCurrent<V>(
      tx: WriteTx,
      claim: MerchantClaim,
      f: OrderListFilter,
      present: (rows: OrderSummaryRow[], total: number) => V,
    ): Promise<V | AloneReadRefusal> {
      if (!listsInOneStatement(f)) throw new Error('listSummariesWithNonceIfCurrent: a page near the top');
      if (f.merchantId !== claim.merchantId) return 'declined';
      if (tx.dialect === 'sqlite') {
        // The page and its answer first, the nonce last (WriteOptions.writesLast: no savepoint), in one transaction:
        // a claim that no longer holds discards the page.
        const { rows, total } = await countedList(tx, f, 'summary');
        const answer = present(rows, total);
        return (await sqliteNonceIfCurrent(tx, claim)) ? answer : 'declined';
      }
      const { sql, params } = topPageStatement(f, 'summary');
      const joined = await tx.all<OrderRow & { list_total: number; nonce_fresh: number }>(withNonceIfCurrent(sql), {
        ...params,
        claimGeneration: claim.generation,
        claimApiKey: claim.apiKey,
        claimNonce: claim.nonce,
        claimNonceExpiresAt: claim.nonceExpiresAt,
      });
      const first = joined[0]!;
      if (first.nonce_fresh === 0) return 'declined';
      // The rows as they came (their extra members unread by the summary's readers): no copy per row.
      return present(first.id === null ? [] : joined, first.list_total);
    },
    listsInOneStatement,
    listSummaries(tx: ReadTx, filter: OrderListFilter): Promise<{ rows: OrderSummaryRow[]; total: number }> {
      const counted = filter.orderNoPrefix === undefined && filter.orderNoExact === undefined && filter.before === undefined;
      return counted ? countedList(tx, filter, 'summary') : naivePage(tx, filter);
    },
    /** The same answer by count(*) and OFFSET: the reference for tests and benchmarks. */
    listNaive(tx: ReadTx, filter: OrderListFilter): Promise<{ rows: OrderRow[]; total: number }> {
      return naivePage(tx, filter);
    },
    /** One page without the count (keyset pages after the first). */
    page(tx: ReadTx, filter: OrderListFilter): Promise<OrderRow[]> {
      return tx.all(statementsFor(tx.dialect, filter).page, bind(filter));
    },
  };
}
export type OrderRepository = ReturnType<typeof createOrderRepository>;
