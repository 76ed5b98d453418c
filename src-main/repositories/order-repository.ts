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
  offset: number;
  limit: number;
}

const ORDER_COLUMNS = [
  'order_no', 'merchant_id', 'channel_id', 'order_type', 'status', 'pay_method', 'cny_amount', 'service_rate',
  'passage_rate', 'deposit_rate', 'base_rate', 'service_amount', 'passage_amount', 'deposit_amount', 'channel_amount',
  'merchant_actual_amount', 'customer_name', 'payment_method_id', 'payment_method_snapshot', 'customer_payment_method',
  'alpha_data_enc', 'pay_token', 'expires_at', 'createtime',
] as const satisfies readonly (keyof NewOrderRow)[];

export function createOrderRepository(db: Database) {
  const insert = db.prepare<NewOrderRow>(
    `INSERT INTO orders (${ORDER_COLUMNS.join(', ')}, updatetime)
     VALUES (${ORDER_COLUMNS.map((c) => '@' + c).join(', ')}, @createtime)`,
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
    ]
      .map((b) => (b ? '1' : '0'))
      .join('');
    let s = listStatements.get(key);
    if (!s) {
      const byOrderNo = f.orderNoPrefix !== undefined || f.orderNoExact !== undefined;
      // An order-number search is a range on (merchant_id, order_no) (migration
      // 0002), whatever else is filtered: the planner would otherwise prefer
      // the index that avoids the sort and walk all the merchant's orders.
      const from = byOrderNo ? 'orders INDEXED BY orders_m_no' : 'orders';
      const where = ['merchant_id = @merchantId'];
      if (f.orderType !== undefined) where.push('order_type = @orderType');
      if (f.status !== undefined) where.push('status = @status');
      if (f.startTime !== undefined) where.push('createtime >= @startTime');
      if (f.endTime !== undefined) where.push('createtime <= @endTime');
      if (f.orderNoPrefix !== undefined) where.push("order_no >= @orderNoPrefix AND order_no < @orderNoPrefix || '~'");
      if (f.orderNoExact !== undefined) where.push('order_no = @orderNoExact');
      const clause = where.join(' AND ');
      const pageClause = f.before !== undefined ? `${clause} AND (createtime, id) < (@beforeTime, @beforeId)` : clause;
      s = {
        page: db.prepare(`SELECT * FROM ${from} WHERE ${pageClause} ORDER BY createtime DESC, id DESC LIMIT @limit OFFSET @offset`),
        count: db.prepare(`SELECT count(*) AS n FROM ${from} WHERE ${clause}`),
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

  return {
    insert(row: NewOrderRow): number {
      return Number(insert.run(row).lastInsertRowid);
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
    list(filter: OrderListFilter): { rows: OrderRow[]; total: number } {
      const s = statementsFor(filter);
      const params = bind(filter);
      return { rows: s.page.all(params), total: s.count.get(params)!.n };
    },
    /** One page without the count (keyset pages after the first). */
    page(filter: OrderListFilter): OrderRow[] {
      return statementsFor(filter).page.all(bind(filter));
    },
  };
}
export type OrderRepository = ReturnType<typeof createOrderRepository>;
