import { AppError, ErrorCode } from '../../src-shared/errors';
import { categoryText, PAY_METHODS, payMethodText, type ChannelCategory, type PayMethod } from '../../src-shared/constants';
import { normaliseRate, type FeeSettings } from '../../src-shared/fees';
import { formatFen } from '../../src-shared/money';
import {
  DEFAULT_PAY_TIMEOUT_SECONDS,
  DEFAULT_PAYOUT_DELAY_SECONDS,
  DEFAULT_SETTLE_DELAY_SECONDS,
  MAX_ORDER_AMOUNT_FEN,
} from '../../src-shared/constants';
import type { PayChannelView } from '../../src-shared/schemas/merchant-api';
import type {
  ChannelAdminView,
  ChannelCreateInput,
  ChannelLinkInput,
  ChannelLinkView,
  ChannelUpdateInput,
} from '../../src-shared/schemas/operator';
import type { SecretBox } from '../crypto/secret-box';
import type { ChannelRepository, ChannelRow, LinkedChannelRow, LinkRow } from '../repositories/channel-repository';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { Clock } from './context';
import { newSandboxNotifySecret, SANDBOX_NOTIFY_SECRET_KEY } from '../channels/sandbox-driver';

/** Canonical order wxpay, alipay, bank, so equal sets are equal strings. */
export function canonicalPayMethods(methods: readonly PayMethod[]): string {
  return PAY_METHODS.filter((m) => methods.includes(m)).join(',');
}

export function payMethodsOf(row: Pick<ChannelRow, 'pay_method'>): PayMethod[] {
  return row.pay_method.split(',') as PayMethod[];
}

export function toPayChannelView(row: ChannelRow): PayChannelView {
  return {
    id: row.id,
    category: row.category,
    name: row.name,
    pay_method: row.pay_method,
    category_text: categoryText(row.category),
    pay_method_text: payMethodText(row.pay_method),
    createtime: row.createtime,
    updatetime: row.updatetime,
  };
}

function channelFees(row: ChannelRow): FeeSettings {
  return { service_rate: row.service_rate, passage_rate: row.passage_rate, deposit_rate: row.deposit_rate, base_rate: row.base_rate };
}

/** Link overrides over channel settings: what an order on this link uses. */
export function effectiveFees(row: LinkedChannelRow): FeeSettings {
  return {
    service_rate: row.link_service_rate ?? row.service_rate,
    passage_rate: row.link_passage_rate ?? row.passage_rate,
    deposit_rate: row.link_deposit_rate ?? row.deposit_rate,
    base_rate: row.link_base_rate ?? row.base_rate,
  };
}

function maskValue(value: string): string {
  if (value.length <= 4) return '****';
  return '*'.repeat(Math.min(8, value.length - 2)) + value.slice(-2);
}

export interface ChannelServiceDeps {
  clock: Clock;
  secretBox: SecretBox;
  channels: ChannelRepository;
  merchants: MerchantRepository;
}

/** Channels and their links to merchants: every method runs in the caller's unit of work (tx). */
/** The checks of a channel an order is created on; its fees. */
function usableForOrder(channel: LinkedChannelRow | undefined, channelId: number, payMethod: PayMethod): { channel: LinkedChannelRow; fees: FeeSettings } {
  if (!channel || channel.enabled !== 1) {
    throw new AppError(ErrorCode.VALIDATION, `paychannel_id: no enabled channel ${channelId} is linked to this merchant`);
  }
  if (!payMethodsOf(channel).includes(payMethod)) {
    throw new AppError(ErrorCode.VALIDATION, `paychannel_paymethod: channel ${channelId} accepts only ${channel.pay_method}`);
  }
  return { channel, fees: effectiveFees(channel) };
}

/** Links kept for cachedForOrder; past this many the cache starts again (each entry is one lookup to refill). */
const MAX_CACHED_LINKS = 10_000;
const linkKey = (merchantId: number, channelId: number): string => `${merchantId}:${channelId}`;

export function createChannelService({ clock, secretBox, channels, merchants }: ChannelServiceDeps) {
  // Links as an order last read them, with the row generation they were read at: never trusted on their own,
  // only staked in a unit that checks the generation (order repository, insertWithNonceIfCurrent).
  const readForOrders = new Map<string, { row: LinkedChannelRow; generation: string }>();

  async function require(tx: ReadTx, id: number): Promise<ChannelRow> {
    const row = await channels.findById(tx, id);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `channel_id: channel ${id} not found`);
    return row;
  }

  function config(row: ChannelRow): Record<string, string> {
    return row.config_enc ? (JSON.parse(secretBox.open(row.config_enc)) as Record<string, string>) : {};
  }

  function toAdminView(row: ChannelRow): ChannelAdminView {
    const masked = Object.fromEntries(Object.entries(config(row)).map(([k, v]) => [k, maskValue(v)]));
    return {
      ...toPayChannelView(row),
      driver: row.driver,
      ...channelFees(row),
      min_amount: formatFen(row.min_amount),
      max_amount: formatFen(row.max_amount),
      enabled: row.enabled === 1,
      pay_timeout: row.pay_timeout_seconds,
      settle_delay: row.settle_delay_seconds,
      payout_delay: row.payout_delay_seconds,
      config_masked: masked,
      createtime: row.createtime,
      updatetime: row.updatetime,
    };
  }

  async function toLinkView(tx: ReadTx, link: LinkRow): Promise<ChannelLinkView> {
    const linked = (await channels.findLinked(tx, link.merchant_id, link.channel_id))!;
    return {
      merchant_id: link.merchant_id,
      channel_id: link.channel_id,
      service_rate: link.service_rate,
      passage_rate: link.passage_rate,
      deposit_rate: link.deposit_rate,
      base_rate: link.base_rate,
      effective: effectiveFees(linked),
      createtime: link.createtime,
    };
  }

  return {
    async create(tx: WriteTx, input: ChannelCreateInput): Promise<ChannelAdminView> {
      const min = input.min_amount ?? 1;
      const max = input.max_amount ?? MAX_ORDER_AMOUNT_FEN;
      if (min > max) throw new AppError(ErrorCode.VALIDATION, 'max_amount: must not be below min_amount');
      const id = await channels.insert(tx, {
        category: input.category,
        name: input.name,
        pay_method: canonicalPayMethods(input.pay_methods),
        driver: input.driver ?? 'sandbox',
        config_enc: input.config ? secretBox.seal(JSON.stringify(input.config)) : null,
        service_rate: normaliseRate(input.service_rate ?? '0'),
        passage_rate: normaliseRate(input.passage_rate ?? '0'),
        deposit_rate: input.deposit_rate ?? 0,
        base_rate: input.base_rate ?? 0,
        min_amount: min,
        max_amount: max,
        enabled: input.enabled === false ? 0 : 1,
        pay_timeout_seconds: input.pay_timeout ?? DEFAULT_PAY_TIMEOUT_SECONDS,
        settle_delay_seconds: input.settle_delay ?? DEFAULT_SETTLE_DELAY_SECONDS,
        payout_delay_seconds: input.payout_delay ?? DEFAULT_PAYOUT_DELAY_SECONDS,
        createtime: clock.now(),
      });
      return toAdminView(await require(tx, id));
    },

    async update(tx: WriteTx, input: ChannelUpdateInput): Promise<ChannelAdminView> {
      const row = await require(tx, input.id);
      const min = input.min_amount ?? row.min_amount;
      const max = input.max_amount ?? row.max_amount;
      if (min > max) throw new AppError(ErrorCode.VALIDATION, 'max_amount: must not be below min_amount');
      await channels.update(tx, {
        id: row.id,
        name: input.name ?? row.name,
        pay_method: input.pay_methods ? canonicalPayMethods(input.pay_methods) : row.pay_method,
        config_enc: input.config ? secretBox.seal(JSON.stringify(input.config)) : row.config_enc,
        service_rate: input.service_rate !== undefined ? normaliseRate(input.service_rate) : row.service_rate,
        passage_rate: input.passage_rate !== undefined ? normaliseRate(input.passage_rate) : row.passage_rate,
        deposit_rate: input.deposit_rate ?? row.deposit_rate,
        base_rate: input.base_rate ?? row.base_rate,
        min_amount: min,
        max_amount: max,
        enabled: input.enabled === undefined ? row.enabled : input.enabled ? 1 : 0,
        pay_timeout_seconds: input.pay_timeout ?? row.pay_timeout_seconds,
        settle_delay_seconds: input.settle_delay ?? row.settle_delay_seconds,
        payout_delay_seconds: input.payout_delay ?? row.payout_delay_seconds,
        updatetime: clock.now(),
      });
      return toAdminView(await require(tx, row.id));
    },

    async get(tx: ReadTx, id: number): Promise<ChannelAdminView> {
      return toAdminView(await require(tx, id));
    },

    async list(tx: ReadTx): Promise<ChannelAdminView[]> {
      return (await channels.list(tx)).map(toAdminView);
    },

    async link(tx: WriteTx, input: ChannelLinkInput): Promise<ChannelLinkView> {
      if (!(await merchants.findById(tx, input.merchant_id))) {
        throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${input.merchant_id} not found`);
      }
      await require(tx, input.channel_id);
      const row: LinkRow = {
        merchant_id: input.merchant_id,
        channel_id: input.channel_id,
        service_rate: input.service_rate == null ? null : normaliseRate(input.service_rate),
        passage_rate: input.passage_rate == null ? null : normaliseRate(input.passage_rate),
        deposit_rate: input.deposit_rate ?? null,
        base_rate: input.base_rate ?? null,
        createtime: clock.now(),
      };
      await channels.link(tx, row);
      return toLinkView(tx, row);
    },

    async unlink(tx: WriteTx, merchantId: number, channelId: number): Promise<void> {
      if (!(await channels.unlink(tx, merchantId, channelId))) {
        throw new AppError(ErrorCode.NOT_FOUND, `channel_id: channel ${channelId} is not linked to merchant ${merchantId}`);
      }
    },

    async linksOfMerchant(tx: ReadTx, merchantId: number): Promise<ChannelLinkView[]> {
      const links = await channels.linksOfMerchant(tx, merchantId);
      return Promise.all(links.map((l) => toLinkView(tx, l)));
    },

    async linksOfChannel(tx: ReadTx, channelId: number): Promise<ChannelLinkView[]> {
      const links = await channels.linksOfChannel(tx, channelId);
      return Promise.all(links.map((l) => toLinkView(tx, l)));
    },

    /** getPayChannels: enabled channels linked to the merchant, basic data only. */
    async listForMerchant(tx: ReadTx, merchantId: number, category?: ChannelCategory): Promise<PayChannelView[]> {
      return (await channels.listEnabledLinked(tx, merchantId, category)).map(toPayChannelView);
    },

    /** Enabled channels linked to the merchant, with the link's fee overrides. */
    listEnabledLinked: (tx: ReadTx, merchantId: number, category?: ChannelCategory) => channels.listEnabledLinked(tx, merchantId, category),

    /** The channel an order of this merchant may use, or a field-named error. */
    async resolveForOrder(tx: ReadTx, merchantId: number, channelId: number, payMethod: PayMethod): Promise<{ channel: LinkedChannelRow; fees: FeeSettings }> {
      const found = await channels.findLinkedWithGeneration(tx, merchantId, channelId);
      // The cache holds what the last read found, usable or not: a link gone (or read without a generation) is
      // dropped, so a later request does not stake a link that is no more.
      if (found?.generation !== undefined) {
        if (readForOrders.size >= MAX_CACHED_LINKS) readForOrders.clear();
        readForOrders.set(linkKey(merchantId, channelId), { row: found.row, generation: found.generation });
      } else {
        readForOrders.delete(linkKey(merchantId, channelId));
      }
      return usableForOrder(found?.row, channelId, payMethod);
    },

    /**
     * resolveForOrder without a lookup: the link as the last order on it read
     * it, with the row generation it was read at, for a write that claims
     * nothing changed since (Store.writeAlone). Undefined when not read yet or
     * when resolveForOrder would refuse: the unit of work then decides, and
     * says why.
     */
    cachedForOrder(merchantId: number, channelId: number, payMethod: PayMethod): { channel: LinkedChannelRow; fees: FeeSettings; generation: string } | undefined {
      const cached = readForOrders.get(linkKey(merchantId, channelId));
      if (!cached) return undefined;
      try {
        return { ...usableForOrder(cached.row, channelId, payMethod), generation: cached.generation };
      } catch (err) {
        if (err instanceof AppError) return undefined;
        throw err;
      }
    },

    /** Decrypted driver configuration; for drivers only. */
    config,
    /**
     * The sandbox channel's notification secret, created (and stored
     * encrypted) on first use; returns the channel row that holds it.
     */
    async ensureSandboxSecret(tx: WriteTx, channelId: number): Promise<ChannelRow> {
      const row = await require(tx, channelId);
      const cfg = config(row);
      if (row.driver !== 'sandbox' || cfg[SANDBOX_NOTIFY_SECRET_KEY]) return row;
      cfg[SANDBOX_NOTIFY_SECRET_KEY] = newSandboxNotifySecret();
      await channels.setConfig(tx, channelId, secretBox.seal(JSON.stringify(cfg)));
      return require(tx, channelId);
    },
    require,
  };
}
export type ChannelService = ReturnType<typeof createChannelService>;
