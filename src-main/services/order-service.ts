import { randomFillSync, randomInt } from 'node:crypto';
import { formatBeijingCompact } from '../../src-shared/beijing-time';
import { AppError, ErrorCode } from '../../src-shared/errors';
import { ORDER_TYPE } from '../../src-shared/constants';
import { computeBuyFees, computeSellFees, type FeeSettings, type SellFees } from '../../src-shared/fees';
import { formatFen } from '../../src-shared/money';
import type {
  AlphaCardInfo,
  AlphaPersonalData,
  BuyOrderView,
  CreateBuyOrderInput,
  CreateSellOrderInput,
  OrderListView,
  OrderQueryListInput,
  OrderView,
  SellOrderView,
} from '../../src-shared/schemas/merchant-api';
import type {
  AloneInsertRefusal,
  AloneReadRefusal,
  MerchantClaim,
  NewOrderRow,
  OrderListFilter,
  OrderRepository,
  OrderRow,
  OrderSummaryRow,
} from '../repositories/order-repository';
import type { LinkedChannelRow } from '../repositories/channel-repository';
import type { PaymentMethodRow } from '../repositories/payment-method-repository';
import type { ChannelDrivers } from '../channels/drivers';
import { checkoutUrl } from '../channels/sandbox-driver';
import type { SecretBox } from '../crypto/secret-box';
import type { ReadTx, WriteTx } from '../store/store';
import type { ChannelService } from './channel-service';
import type { Clock, PublicUrl } from './context';
import type { LedgerService } from './ledger-service';
import type { OrderLifecycleService } from './order-lifecycle-service';
import type { PaymentMethodService } from './payment-method-service';

export interface PaymentMethodSnapshot {
  bank: string;
  sub_bank: string;
  card_number: string;
  real_name: string;
}
export interface CustomerPaymentMethod extends PaymentMethodSnapshot {
  full_info: string;
}

/** Checks alpha card regions; supplied by the regions module. */
export interface AlphaRegionCheck {
  /** Names of the province and city, or the field-named problem. */
  check(provId: string, areaId: string): { ok: true; province: string; city: string } | { ok: false; message: string };
}

/** The last second's Beijing stamp: orders created in the same second share it. */
const lastStamp = { seconds: NaN, text: '' };

/** `B` or `S`, Beijing wall-clock time to the second, 10 random digits. */
export function newOrderNo(orderType: 1 | 2, nowSeconds: number): string {
  if (lastStamp.seconds !== nowSeconds) {
    lastStamp.text = formatBeijingCompact(nowSeconds); // 20261121103000
    lastStamp.seconds = nowSeconds;
  }
  const stamp = lastStamp.text;
  const random = String(randomInt(0, 100_000)).padStart(5, '0') + String(randomInt(0, 100_000)).padStart(5, '0');
  return (orderType === ORDER_TYPE.BUY ? 'B' : 'S') + stamp + random;
}

/** Bytes of the OS CSPRNG, fetched 4 KiB at a time (one system call per ~200 tokens instead of one each). */
const randomPool = { bytes: Buffer.alloc(4096), used: 4096 };
function pooledRandomBytes(n: number): Buffer {
  if (randomPool.used + n > randomPool.bytes.length) {
    randomFillSync(randomPool.bytes);
    randomPool.used = 0;
  }
  const out = Buffer.from(randomPool.bytes.subarray(randomPool.used, randomPool.used + n));
  randomPool.used += n;
  return out;
}

/**
 * 32 URL-safe characters: 6 bytes of the creation time in milliseconds, then
 * 18 random bytes (144 bits, as unguessable as ever). Tokens of orders created
 * together sort together, so the unique pay_token index grows at its end
 * instead of at a random page per order (docs/benchmarks.md).
 */
export function newPayToken(): string {
  const time = Buffer.alloc(6);
  time.writeUIntBE(Date.now(), 0, 6);
  return time.toString('base64url') + pooledRandomBytes(18).toString('base64url');
}

export function toOrderView(row: OrderSummaryRow): OrderView {
  return {
    order_no: row.order_no,
    order_type: row.order_type,
    cny_amount: formatFen(row.cny_amount),
    merchant_actual_amount: row.merchant_actual_amount,
    service_rate: row.service_rate,
    service_amount: row.service_amount,
    status: row.status,
    createtime: row.createtime,
    updatetime: row.updatetime,
  };
}

/**
 * Where the payer of a buy order goes: what its channel driver answered when
 * the order was created (stored). Orders from before that was stored
 * (schema < 8) were all sandbox orders: their checkout page on this listener.
 */
export function payUrlOf(row: Pick<OrderRow, 'order_type' | 'pay_url' | 'pay_token'>, publicUrl: string): string | null {
  if (row.order_type !== ORDER_TYPE.BUY) return null;
  return row.pay_url ?? (row.pay_token ? checkoutUrl(publicUrl, row.pay_token) : null);
}

export function toBuyOrderView(row: OrderRow, publicUrl: string): BuyOrderView {
  return {
    order_no: row.order_no,
    status: row.status,
    order_type: 1,
    cny_amount: formatFen(row.cny_amount),
    payment_method: row.pay_method,
    merchant_amount: formatFen(row.cny_amount),
    deposit_amount: row.deposit_amount,
    service_amount: row.service_amount,
    merchant_actual_amount: row.merchant_actual_amount,
    pay_url: payUrlOf(row, publicUrl)!,
    createtime: row.createtime,
  };
}

export function toSellOrderView(row: OrderRow): SellOrderView {
  return {
    order_id: String(row.id),
    order_no: row.order_no,
    status: row.status,
    order_type: 2,
    cny_amount: formatFen(row.cny_amount),
    payment_method_id: row.payment_method_id!,
    payment_method_snapshot: JSON.parse(row.payment_method_snapshot!) as PaymentMethodSnapshot,
    merchant_amount: formatFen(row.cny_amount),
    passage_rate: row.passage_rate,
    passage_amount: row.passage_amount,
    deposit_rate: row.deposit_rate,
    deposit_amount: row.deposit_amount,
    service_amount: row.service_amount,
    channel_amount: row.channel_amount,
    merchant_actual_amount: row.merchant_actual_amount,
    base_rate: row.base_rate,
    customer_payment_method: JSON.parse(row.customer_payment_method!) as CustomerPaymentMethod,
    createtime: row.createtime,
  };
}

function snapshotOf(pm: PaymentMethodRow): PaymentMethodSnapshot {
  return { bank: pm.bank, sub_bank: pm.sub_bank, card_number: pm.card_number_masked, real_name: pm.real_name };
}

export interface OrderServiceDeps {
  clock: Clock;
  secretBox: SecretBox;
  publicUrl: PublicUrl;
  orders: OrderRepository;
  channels: ChannelService;
  paymentMethods: PaymentMethodService;
  /** Absent until region data is loaded; then prov_id/area_id are checked. */
  alphaRegions?: AlphaRegionCheck | undefined;
  ledger: LedgerService;
  lifecycle: OrderLifecycleService;
  drivers: ChannelDrivers;
}

type ListQuery = Omit<OrderQueryListInput, 'api_key' | 'timestamp' | 'nonce' | 'signature'>;

function listFilter(merchantId: number, q: ListQuery): OrderListFilter {
  return {
    merchantId,
    status: q.status,
    orderType: q.order_type,
    startTime: q.start_time,
    endTime: q.end_time,
    offset: (q.page - 1) * q.limit,
    limit: q.limit,
  };
}

function listView(rows: OrderSummaryRow[], total: number, q: ListQuery): OrderListView {
  return { list: rows.map(toOrderView), total, page: q.page, limit: q.limit };
}

/** Orders as the merchant API makes and shows them: every method runs in the caller's unit of work (tx). */
export function createOrderService(deps: OrderServiceDeps) {
  const { clock, orders } = deps;

  function checkAmountLimits(amount: number, channel: { id: number; min_amount: number; max_amount: number }): void {
    if (amount < channel.min_amount || amount > channel.max_amount) {
      throw new AppError(
        ErrorCode.VALIDATION,
        `cny_amount: must be between ${formatFen(channel.min_amount)} and ${formatFen(channel.max_amount)} on channel ${channel.id}`,
      );
    }
  }

  /** Inserts with a fresh order_no, retrying the rare collision (the insert then stores nothing). */
  async function insertWithOrderNo(tx: WriteTx, row: Omit<NewOrderRow, 'order_no'>, orderType: 1 | 2, payUrlFor?: (draft: NewOrderRow) => string): Promise<OrderRow> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const draft: NewOrderRow = { ...row, order_no: newOrderNo(orderType, row.createtime) };
      if (payUrlFor) draft.pay_url = payUrlFor(draft);
      const inserted = await orders.insertReturning(tx, draft);
      if (inserted) return inserted;
    }
    throw new Error('order_no: five order numbers in a row were taken');
  }

  async function alphaPayee(
    tx: WriteTx,
    merchantId: number,
    personal: AlphaPersonalData,
    card: AlphaCardInfo,
  ): Promise<{ payee: PaymentMethodRow; customer: CustomerPaymentMethod }> {
    let regionText = '';
    if (deps.alphaRegions) {
      const region = deps.alphaRegions.check(card.prov_id, card.area_id);
      if (!region.ok) throw new AppError(ErrorCode.VALIDATION, region.message);
      regionText = region.province === region.city ? region.city : region.province + region.city;
    }
    const payee = await deps.paymentMethods.upsertAlphaCard(tx, merchantId, 'bank', card.card_no, card.card_name);
    const snapshot = snapshotOf(payee);
    const fullInfo = [snapshot.real_name, snapshot.card_number, regionText, `mobile ${personal.mobile_no.slice(0, 3)}****${personal.mobile_no.slice(-4)}`]
      .filter((s) => s.length > 0)
      .join(' ');
    return { payee, customer: { ...snapshot, full_info: fullInfo } };
  }

  async function quoteSell(tx: ReadTx, merchantId: number, input: CreateSellOrderInput): Promise<{ channel: LinkedChannelRow; fees: FeeSettings; f: SellFees }> {
    const { channel, fees } = await deps.channels.resolveForOrder(tx, merchantId, input.paychannel_id, input.paychannel_paymethod);
    const personal = input.alpha_personal_data;
    const card = input.alpha_card_info;
    if (channel.category === 'alpha') {
      if (!personal) throw new AppError(ErrorCode.VALIDATION, 'alpha_personal_data: is required on alpha channels');
      if (!card) throw new AppError(ErrorCode.VALIDATION, 'alpha_card_info: is required on alpha channels');
      if (deps.alphaRegions) {
        const region = deps.alphaRegions.check(card.prov_id, card.area_id);
        if (!region.ok) throw new AppError(ErrorCode.VALIDATION, region.message);
      }
    } else {
      if (personal) throw new AppError(ErrorCode.VALIDATION, `alpha_personal_data: not accepted on ${channel.category} channels`);
      if (card) throw new AppError(ErrorCode.VALIDATION, `alpha_card_info: not accepted on ${channel.category} channels`);
      await deps.paymentMethods.defaultFor(tx, merchantId, input.paychannel_paymethod);
    }
    checkAmountLimits(input.cny_amount, channel);
    const f = computeSellFees(input.cny_amount, fees);
    if (f.merchant_actual_amount <= 0) {
      throw new AppError(ErrorCode.VALIDATION, 'cny_amount: the channel rebate exceeds the amount');
    }
    return { channel, fees, f };
  }

  /**
   * A buy order's row (all but its order number) and where its payer goes,
   * from the linked channel: the amount within the channel's limits, the
   * fees, the deadline. Throws the refusal.
   */
  function buyDraft(merchantId: number, input: CreateBuyOrderInput, channel: LinkedChannelRow, fees: FeeSettings) {
    checkAmountLimits(input.cny_amount, channel);
    const f = computeBuyFees(input.cny_amount, fees);
    if (f.merchant_actual_amount <= 0) {
      throw new AppError(ErrorCode.VALIDATION, 'cny_amount: too small to cover the service fee and deposit');
    }
    const now = clock.now();
    const driver = deps.drivers.for(channel);
    const row: Omit<NewOrderRow, 'order_no'> = {
      merchant_id: merchantId,
      channel_id: channel.id,
      order_type: ORDER_TYPE.BUY,
      status: 'pending',
      pay_method: input.paychannel_paymethod,
      cny_amount: input.cny_amount,
      ...fees,
      service_amount: f.service_amount,
      passage_amount: 0,
      deposit_amount: f.deposit_amount,
      channel_amount: 0,
      merchant_actual_amount: f.merchant_actual_amount,
      customer_name: input.customer_name || null,
      payment_method_id: null,
      payment_method_snapshot: null,
      customer_payment_method: null,
      alpha_data_enc: null,
      pay_token: newPayToken(),
      pay_url: null,
      expires_at: now + channel.pay_timeout_seconds,
      createtime: now,
    };
    // The channel's driver starts collecting and says where the payer goes; that is stored with the order.
    // A refusal (throw) leaves no order behind.
    return { row, payUrlFor: (draft: NewOrderRow): string => driver.startPayIn(draft, channel).payUrl };
  }

  return {
    async createBuy(tx: WriteTx, merchantId: number, input: CreateBuyOrderInput): Promise<OrderRow> {
      const { channel, fees } = await deps.channels.resolveForOrder(tx, merchantId, input.paychannel_id, input.paychannel_paymethod);
      const draft = buyDraft(merchantId, input, channel, fees);
      return insertWithOrderNo(tx, draft.row, ORDER_TYPE.BUY, draft.payUrlFor);
    },

    /**
     * createBuy as a unit of its own (Store.writeAlone), on the channel as
     * the last order on it read it: one attempt, with a new order number
     * each. The unit stores the order and the nonce only while the row
     * generation is the one the merchant and the link were read at and the
     * nonce is unused (else 'declined').
     * Undefined when the link is not cached or createBuy would refuse: the
     * unit of work then decides.
     */
    planBuyAlone(merchantId: number, input: CreateBuyOrderInput): ((tx: WriteTx, claim: MerchantClaim) => Promise<OrderRow | AloneInsertRefusal>) | undefined {
      const cached = deps.channels.cachedForOrder(merchantId, input.paychannel_id, input.paychannel_paymethod);
      if (!cached) return undefined;
      let draft: ReturnType<typeof buyDraft>;
      try {
        draft = buyDraft(merchantId, input, cached.channel, cached.fees);
      } catch (err) {
        if (err instanceof AppError) return undefined;
        throw err;
      }
      return async (tx, claim) => {
        const row: NewOrderRow = { ...draft.row, order_no: newOrderNo(ORDER_TYPE.BUY, draft.row.createtime) };
        row.pay_url = draft.payUrlFor(row);
        // Declined: the route drops the cached merchant; the unit of work reads the merchant and (for a new order) the
        // link again, which replaces this entry.
        return orders.insertWithNonceIfCurrent(tx, { ...claim, channelId: cached.channel.id, linkGeneration: cached.generation }, row);
      };
    },

    /**
     * What a sell order would be, checked but not written: its channel, fees
     * and the sum taken from the merchant (merchant_actual_amount). The
     * approval of a held withdrawal shows it, and holds that sum.
     */
    quoteSell,

    async createSell(tx: WriteTx, merchantId: number, input: CreateSellOrderInput): Promise<OrderRow> {
      const { channel, fees, f } = await quoteSell(tx, merchantId, input);
      const personal = input.alpha_personal_data;
      const card = input.alpha_card_info;
      let payee: PaymentMethodRow;
      let customer: CustomerPaymentMethod;
      if (personal && card) {
        ({ payee, customer } = await alphaPayee(tx, merchantId, personal, card));
      } else {
        payee = await deps.paymentMethods.defaultFor(tx, merchantId, input.paychannel_paymethod);
        const snapshot = snapshotOf(payee);
        customer = {
          ...snapshot,
          full_info: [snapshot.real_name, snapshot.bank, snapshot.sub_bank, snapshot.card_number].filter((s) => s.length > 0).join(' '),
        };
      }
      // Fail before writing anything when the balance cannot cover it
      // (postOrder checks again, on the locked balance, when it reserves the sum).
      const available = (await deps.ledger.balances(tx, merchantId)).available;
      if (available < f.merchant_actual_amount) {
        throw new AppError(
          ErrorCode.INSUFFICIENT_BALANCE,
          `insufficient balance: available ${formatFen(available)}, this sell order needs ${formatFen(f.merchant_actual_amount)}`,
        );
      }
      const now = clock.now();
      const order = await insertWithOrderNo(
        tx,
        {
          merchant_id: merchantId,
          channel_id: channel.id,
          order_type: ORDER_TYPE.SELL,
          status: 'pending',
          pay_method: input.paychannel_paymethod,
          cny_amount: input.cny_amount,
          ...fees,
          ...f,
          customer_name: null,
          payment_method_id: payee.id,
          payment_method_snapshot: JSON.stringify(snapshotOf(payee)),
          customer_payment_method: JSON.stringify(customer),
          alpha_data_enc: personal && card ? deps.secretBox.seal(JSON.stringify({ personal, card })) : null,
          pay_token: null,
          pay_url: null,
          expires_at: null,
          createtime: now,
        },
        ORDER_TYPE.SELL,
      );
      await deps.ledger.postOrder(tx, 'sell_freeze', order, `${order.order_no}: reserved for payout`);
      // The channel gets the payout right after this commits.
      await deps.lifecycle.schedule(tx, order, 'start_payout', 0);
      return order;
    },

    async list(tx: ReadTx, merchantId: number, q: ListQuery): Promise<OrderListView> {
      const { rows, total } = await orders.listSummaries(tx, listFilter(merchantId, q));
      return listView(rows, total, q);
    },

    /**
     * list as a unit of its own with the request's nonce (Store.writeAlone,
     * relaxed like a read's nonce), for a request verified against the
     * cached merchant; 'declined' when the row generation moved on since
     * the merchant was read, or the nonce is used.
     * Undefined for a page the repository does not answer so (a deep page,
     * an order-number search): the unit of work then runs.
     */
    listAlone(merchantId: number, q: ListQuery): ((tx: WriteTx, claim: MerchantClaim) => Promise<OrderListView | AloneReadRefusal>) | undefined {
      const filter = listFilter(merchantId, q);
      if (!orders.listsInOneStatement(filter)) return undefined;
      return (tx, claim) => orders.listSummariesWithNonceIfCurrent(tx, claim, filter, (rows, total) => listView(rows, total, q));
    },

    /** Another merchant's order answers exactly like a missing one. */
    async requireForMerchant(tx: ReadTx, merchantId: number, orderNo: string): Promise<OrderRow> {
      const row = await orders.findForMerchant(tx, merchantId, orderNo);
      if (!row) throw new AppError(ErrorCode.NOT_FOUND, `order_no: order ${orderNo} not found`);
      return row;
    },

    /** Any merchant's order, for operators. */
    async requireByNo(tx: ReadTx, orderNo: string): Promise<OrderRow> {
      const row = await orders.findByNo(tx, orderNo);
      if (!row) throw new AppError(ErrorCode.NOT_FOUND, `order_no: order ${orderNo} not found`);
      return row;
    },

    /** The answer createOrder gives for an order (buy: where its payer goes). */
    createdView(row: OrderRow): BuyOrderView | SellOrderView {
      return row.order_type === ORDER_TYPE.BUY ? toBuyOrderView(row, deps.publicUrl()) : toSellOrderView(row);
    },
  };
}
export type OrderService = ReturnType<typeof createOrderService>;
