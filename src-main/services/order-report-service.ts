/**
 * Read models of the console: the orders table with order-number search,
 * the order detail with its fee breakdown (also the CLI's `order show`), the
 * chunked CSV export and the dashboard figures. Reads only; the rules of
 * orders stay in order-service.
 */
import { beijingDateOfDayIndex, beijingDayIndex, beijingDayIndexStart, beijingDayStart, BEIJING_UTC_OFFSET_TEXT } from '../../src-shared/beijing-time';
import { AppError, ErrorCode } from '../../src-shared/errors';
import { categoryText, ORDER_STATUSES, ORDER_TYPE, ORDER_TYPES, type ChannelCategory } from '../../src-shared/constants';
import { formatFen } from '../../src-shared/money';
import type {
  ConsoleChannelView,
  ConsoleOrderListView,
  ConsoleOrderSummary,
  DailyVolumePoint,
  DashboardStatsView,
  FeeBreakdown,
  OrderDetailView,
  OrderExportChunkView,
  OrderExportRow,
  PeriodStats,
  StatusBucket,
} from '../../src-shared/schemas/console';
import { DASHBOARD_DAYS } from '../../src-shared/schemas/console';
import type { ChannelRepository, ChannelRow } from '../repositories/channel-repository';
import type { MerchantRepository } from '../repositories/merchant-repository';
import { orderNoPlanFor, type OrderListFilter, type OrderRepository, type OrderRow } from '../repositories/order-repository';
import type { DayBucketRow, OrderStatsRepository } from '../repositories/order-stats-repository';
import type { ReadTx, Store } from '../store/store';
import { effectiveFees, payMethodsOf, toPayChannelView } from './channel-service';
import type { Clock, PublicUrl } from './context';
import type { CallbackService } from './callback-service';
import type { LedgerService } from './ledger-service';
import type { OrderLifecycleService } from './order-lifecycle-service';
import { payUrlOf, toOrderView, type CustomerPaymentMethod, type PaymentMethodSnapshot } from './order-service';

export interface ConsoleOrderFilter {
  status?: OrderListFilter['status'];
  order_type?: OrderListFilter['orderType'];
  start_time?: number | undefined;
  end_time?: number | undefined;
  order_no?: string | undefined;
  order_no_match: 'prefix' | 'exact';
}

/** The fee lines of an order as stored, and how they make merchant_actual_amount. */
export function feeBreakdownOf(row: OrderRow): FeeBreakdown {
  if (row.order_type === ORDER_TYPE.BUY) {
    return {
      amount: row.cny_amount,
      items: [
        { item: 'service', rate: row.service_rate, rate_unit: 'fraction', amount: row.service_amount, effect: 'deducted' },
        { item: 'deposit', rate: String(row.deposit_rate), rate_unit: 'basis_points', amount: row.deposit_amount, effect: 'deducted' },
      ],
      merchant_actual_amount: row.merchant_actual_amount,
      formula: 'merchant_actual_amount = cny_amount - service_amount - deposit_amount',
    };
  }
  return {
    amount: row.cny_amount,
    items: [
      { item: 'service', rate: row.service_rate, rate_unit: 'fraction', amount: row.service_amount, effect: 'added' },
      { item: 'passage', rate: row.passage_rate, rate_unit: 'fraction', amount: row.passage_amount, effect: 'added' },
      { item: 'deposit', rate: String(row.deposit_rate), rate_unit: 'basis_points', amount: row.deposit_amount, effect: 'added' },
      // The channel's commission is the platform's cost, not charged to the merchant.
      { item: 'channel', rate: String(row.base_rate), rate_unit: 'basis_points', amount: row.channel_amount, effect: 'informational' },
    ],
    merchant_actual_amount: row.merchant_actual_amount,
    formula: 'merchant_actual_amount = cny_amount + service_amount + passage_amount + deposit_amount',
  };
}

/** The spec's Sell order amounts beyond its Order ones, as stored (the export and the detail show them for both types). */
function sellFeeFieldsOf(row: OrderRow) {
  return {
    merchant_amount: formatFen(row.cny_amount),
    passage_rate: row.passage_rate,
    passage_amount: row.passage_amount,
    deposit_rate: row.deposit_rate,
    deposit_amount: row.deposit_amount,
    base_rate: row.base_rate,
    channel_amount: row.channel_amount,
  };
}

/** What an order's detail is read from besides the order itself. */
export interface OrderDetailDeps {
  publicUrl: PublicUrl;
  merchants: MerchantRepository;
  channels: ChannelRepository;
  lifecycle: OrderLifecycleService;
  ledger: LedgerService;
  callbacks: CallbackService;
}

/** The one read model of an order (console getOrder/cancelOrder/simulateOrderOutcome, CLI order show/cancel). */
export async function orderDetailOf(tx: ReadTx, row: OrderRow, deps: OrderDetailDeps): Promise<OrderDetailView> {
  const merchant = (await deps.merchants.findById(tx, row.merchant_id))!;
  const channel = (await deps.channels.findById(tx, row.channel_id))!;
  return {
    order_id: String(row.id),
    order_no: row.order_no,
    order_type: row.order_type,
    status: row.status,
    merchant: { id: merchant.id, name: merchant.name },
    cny_amount: formatFen(row.cny_amount),
    merchant_actual_amount: row.merchant_actual_amount,
    service_rate: row.service_rate,
    service_amount: row.service_amount,
    ...sellFeeFieldsOf(row),
    payment_method: row.pay_method,
    paychannel_id: row.channel_id,
    channel: { id: channel.id, name: channel.name, category: channel.category, category_text: categoryText(channel.category), driver: channel.driver },
    payment_method_id: row.payment_method_id,
    payment_method_snapshot: row.payment_method_snapshot ? (JSON.parse(row.payment_method_snapshot) as PaymentMethodSnapshot) : null,
    customer_payment_method: row.customer_payment_method ? (JSON.parse(row.customer_payment_method) as CustomerPaymentMethod) : null,
    customer_name: row.customer_name,
    pay_url: payUrlOf(row, deps.publicUrl()),
    expires_at: row.expires_at,
    createtime: row.createtime,
    updatetime: row.updatetime,
    fees: feeBreakdownOf(row),
    timeline: (await deps.lifecycle.timelineOf(tx, row.id)).map((t) => ({
      from: t.from_status,
      to: t.to_status,
      source: t.source,
      reason: t.reason,
      time: t.createtime,
    })),
    ledger: await deps.ledger.transactionsOfOrder(tx, row.id),
    scheduled: (await deps.lifecycle.jobsOf(tx, row.id)).map((j) => ({ kind: j.kind, due_at: j.due_at, attempts: j.attempts, last_error: j.last_error })),
    callbacks: await deps.callbacks.listOfOrder(tx, row),
  };
}

/** Every type × status with zeros, then the buckets summed in. */
function periodStatsOf(buckets: readonly DayBucketRow[], since: number): PeriodStats {
  const byKey = new Map<string, StatusBucket>();
  for (const order_type of ORDER_TYPES) {
    for (const status of ORDER_STATUSES) byKey.set(`${order_type}:${status}`, { order_type, status, count: 0, amount: 0, merchant_actual_amount: 0 });
  }
  let count = 0;
  let amount = 0;
  for (const b of buckets) {
    const entry = byKey.get(`${b.order_type}:${b.status}`)!;
    entry.count += b.n;
    entry.amount += b.amount;
    entry.merchant_actual_amount += b.actual;
    count += b.n;
    amount += b.amount;
  }
  return { since, count, amount, by_type_status: [...byKey.values()] };
}

interface ExportCursor {
  /** (createtime, id) of the last row handed out. */
  t: number;
  i: number;
  /** Rows handed out so far and the total when the export started. */
  n: number;
  total: number;
}

function encodeCursor(c: ExportCursor): string {
  return Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
}

function decodeCursor(text: string): ExportCursor {
  const invalid = () => new AppError(ErrorCode.VALIDATION, 'cursor: is not a cursor returned by exportOrders');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const c = value as Partial<ExportCursor>;
  const ok = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  if (typeof value !== 'object' || value === null || !ok(c.t) || !ok(c.i) || !ok(c.n) || !ok(c.total)) throw invalid();
  return c as ExportCursor;
}

export interface OrderReportDeps extends OrderDetailDeps {
  clock: Clock;
  /** The dashboard reads one day per unit of work (see dashboard()). */
  store: Pick<Store, 'read'>;
  orders: OrderRepository;
  orderStats: OrderStatsRepository;
}

/** Reads only; every method but dashboard() runs in the caller's unit of work (tx). */
export function createOrderReportService(deps: OrderReportDeps) {
  const { clock, orders, channels } = deps;

  /** The channel rows of some orders, looked up once each. */
  async function channelLookup(tx: ReadTx, rows: readonly OrderRow[]): Promise<(id: number) => ChannelRow> {
    const cache = new Map<number, ChannelRow>();
    for (const r of rows) if (!cache.has(r.channel_id)) cache.set(r.channel_id, (await channels.findById(tx, r.channel_id))!);
    return (id) => cache.get(id)!;
  }

  function summaryOf(row: OrderRow, channelOf: (id: number) => ChannelRow): ConsoleOrderSummary {
    const channel = channelOf(row.channel_id);
    return {
      ...toOrderView(row),
      order_id: String(row.id),
      pay_method: row.pay_method,
      channel_id: row.channel_id,
      channel_name: channel.name,
      channel_category: channel.category,
      customer_name: row.customer_name,
    };
  }

  function exportRowOf(row: OrderRow, channelOf: (id: number) => ChannelRow): OrderExportRow {
    return { ...summaryOf(row, channelOf), ...sellFeeFieldsOf(row) };
  }

  function listFilter(merchantId: number, f: ConsoleOrderFilter): Omit<OrderListFilter, 'offset' | 'limit'> {
    return {
      merchantId,
      status: f.status,
      orderType: f.order_type,
      startTime: f.start_time,
      endTime: f.end_time,
      orderNoPrefix: f.order_no !== undefined && f.order_no_match === 'prefix' ? f.order_no : undefined,
      orderNoExact: f.order_no !== undefined && f.order_no_match === 'exact' ? f.order_no : undefined,
    };
  }

  return {
    /** The orders table: newest first, remote pagination, every console filter. */
    async list(tx: ReadTx, merchantId: number, q: ConsoleOrderFilter & { page: number; limit: number }): Promise<ConsoleOrderListView> {
      const { rows, total } = await orders.list(tx, { ...listFilter(merchantId, q), offset: (q.page - 1) * q.limit, limit: q.limit });
      const channelOf = await channelLookup(tx, rows);
      return { list: rows.map((r) => summaryOf(r, channelOf)), total, page: q.page, limit: q.limit };
    },

    /** The order detail of one of the merchant's orders; another merchant's answers exactly like a missing one. */
    async detail(tx: ReadTx, merchantId: number, orderNo: string): Promise<OrderDetailView> {
      const row = await orders.findForMerchant(tx, merchantId, orderNo);
      if (!row) throw new AppError(ErrorCode.NOT_FOUND, `order_no: order ${orderNo} not found`);
      return orderDetailOf(tx, row, deps);
    },

    /**
     * One chunk of the CSV export, newest first. Keyset pagination on
     * (createtime, id): orders created meanwhile never shift the chunks.
     */
    async exportChunk(tx: ReadTx, merchantId: number, q: ConsoleOrderFilter & { cursor?: string | undefined; chunk_size: number }): Promise<OrderExportChunkView> {
      const cursor = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
      const filter = listFilter(merchantId, q);
      const total = cursor ? cursor.total : (await orders.list(tx, { ...filter, offset: 0, limit: 0 })).total;
      // One row more than asked tells whether another chunk follows.
      const rows = await orders.page(tx, {
        ...filter,
        before: cursor && { createtime: cursor.t, id: cursor.i },
        orderNoPlan: orderNoPlanFor(total),
        offset: 0,
        limit: q.chunk_size + 1,
      });
      const more = rows.length > q.chunk_size;
      const chunk = more ? rows.slice(0, q.chunk_size) : rows;
      const exported = (cursor?.n ?? 0) + chunk.length;
      const last = chunk[chunk.length - 1];
      const channelOf = await channelLookup(tx, chunk);
      return {
        rows: chunk.map((r) => exportRowOf(r, channelOf)),
        next_cursor: more && last ? encodeCursor({ t: last.createtime, i: last.id, n: exported, total }) : null,
        total: Math.max(total, exported),
        exported,
      };
    },

    /**
     * Today's and the last 30 days' counts and sums, and the daily series:
     * one grouped range scan of the time index per day, yielding to the event
     * loop between days (one read unit of work each) so a busy merchant's
     * dashboard never stalls the API for longer than one day's scan
     * (better-sqlite3 is synchronous).
     */
    async dashboard(merchantId: number): Promise<DashboardStatsView> {
      const now = clock.now();
      const todayStart = beijingDayStart(now);
      const from = todayStart - (DASHBOARD_DAYS - 1) * 86400;
      const today = beijingDayIndex(now);
      const firstDay = today - (DASHBOARD_DAYS - 1);
      const buckets: DayBucketRow[] = [];
      for (let d = firstDay; d <= today; d++) {
        const start = from + (d - firstDay) * 86400;
        buckets.push(...(await deps.store.read((tx) => deps.orderStats.dayBuckets(tx, merchantId, start, start + 86400))));
        if (d < today) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const daily: DailyVolumePoint[] = [];
      for (let d = firstDay; d <= today; d++) {
        daily.push({
          date: beijingDateOfDayIndex(d),
          day_start: beijingDayIndexStart(d),
          buy_count: 0,
          buy_amount: 0,
          sell_count: 0,
          sell_amount: 0,
          buy_completed_amount: 0,
          sell_completed_amount: 0,
        });
      }
      for (const b of buckets) {
        const point = daily[b.day - firstDay];
        if (!point) continue;
        const side = b.order_type === ORDER_TYPE.BUY ? 'buy' : 'sell';
        point[`${side}_count`] += b.n;
        point[`${side}_amount`] += b.amount;
        if (b.status === 'completed') point[`${side}_completed_amount`] += b.amount;
      }
      return {
        generated_at: now,
        time_zone: BEIJING_UTC_OFFSET_TEXT,
        today: periodStatsOf(
          buckets.filter((b) => b.day === today),
          todayStart,
        ),
        last_30_days: periodStatsOf(buckets, from),
        daily,
        balances: await deps.store.read((tx) => deps.ledger.balances(tx, merchantId)),
      };
    },

    /** Enabled channels linked to the merchant, with what the order forms enforce. */
    async channelsForOrders(tx: ReadTx, merchantId: number, category?: ChannelCategory): Promise<ConsoleChannelView[]> {
      return (await channels.listEnabledLinked(tx, merchantId, category)).map((row) => ({
        ...toPayChannelView(row),
        pay_methods: payMethodsOf(row),
        min_amount: formatFen(row.min_amount),
        max_amount: formatFen(row.max_amount),
        fees: effectiveFees(row),
      }));
    },
  };
}
export type OrderReportService = ReturnType<typeof createOrderReportService>;
