import type { ChannelCategory, ChannelDriver } from '../../src-shared/constants';
import type { ReadTx, WriteTx } from '../store/store';

export interface ChannelRow {
  id: number;
  category: ChannelCategory;
  name: string;
  /** Comma-separated, canonical order (wxpay, alipay, bank). */
  pay_method: string;
  driver: ChannelDriver;
  config_enc: string | null;
  service_rate: string;
  passage_rate: string;
  deposit_rate: number;
  base_rate: number;
  min_amount: number;
  max_amount: number;
  enabled: 0 | 1;
  /** Unpaid buy orders are cancelled after this long. */
  pay_timeout_seconds: number;
  /** A paid buy order settles (completed) this long after payment. */
  settle_delay_seconds: number;
  /** An accepted payout completes this long after acceptance (sandbox). */
  payout_delay_seconds: number;
  createtime: number;
  updatetime: number;
}

export type NewChannelRow = Omit<ChannelRow, 'id' | 'updatetime'>;

export interface FeeOverrides {
  service_rate: string | null;
  passage_rate: string | null;
  deposit_rate: number | null;
  base_rate: number | null;
}

export interface LinkRow extends FeeOverrides {
  merchant_id: number;
  channel_id: number;
  createtime: number;
}

export interface LinkedChannelRow extends ChannelRow {
  link_service_rate: string | null;
  link_passage_rate: string | null;
  link_deposit_rate: number | null;
  link_base_rate: number | null;
}

const LINKED_COLUMNS = `c.*, l.service_rate AS link_service_rate, l.passage_rate AS link_passage_rate,
  l.deposit_rate AS link_deposit_rate, l.base_rate AS link_base_rate`;

const ONE_LINK = 'FROM merchant_channels l JOIN channels c ON c.id = l.channel_id WHERE l.merchant_id = ? AND l.channel_id = ?';
const FIND_LINKED = `SELECT ${LINKED_COLUMNS} ${ONE_LINK}`;
// With the row generation the rows were read at (migrations 0010 and 0011); NULL (nothing cached) if its row were gone.
const FIND_LINKED_WITH_GENERATION = `SELECT ${LINKED_COLUMNS}, g.generation AS row_generation
  FROM merchant_channels l JOIN channels c ON c.id = l.channel_id LEFT JOIN row_generation g ON g.id = 1 WHERE l.merchant_id = ? AND l.channel_id = ?`;

export function createChannelRepository() {
  return {
    async insert(tx: WriteTx, row: NewChannelRow): Promise<number> {
      const inserted = await tx.get<{ id: number }>(
        `INSERT INTO channels (category, name, pay_method, driver, config_enc, service_rate, passage_rate, deposit_rate, base_rate,
           min_amount, max_amount, enabled, pay_timeout_seconds, settle_delay_seconds, payout_delay_seconds, createtime, updatetime)
         VALUES (@category, @name, @pay_method, @driver, @config_enc, @service_rate, @passage_rate, @deposit_rate, @base_rate,
           @min_amount, @max_amount, @enabled, @pay_timeout_seconds, @settle_delay_seconds, @payout_delay_seconds, @createtime, @createtime)
         RETURNING id`,
        row,
      );
      return inserted!.id;
    },
    async update(tx: WriteTx, row: Omit<ChannelRow, 'createtime' | 'category' | 'driver'>): Promise<boolean> {
      const changed = await tx.run(
        `UPDATE channels SET name = @name, pay_method = @pay_method, config_enc = @config_enc, service_rate = @service_rate,
           passage_rate = @passage_rate, deposit_rate = @deposit_rate, base_rate = @base_rate, min_amount = @min_amount,
           max_amount = @max_amount, enabled = @enabled, pay_timeout_seconds = @pay_timeout_seconds,
           settle_delay_seconds = @settle_delay_seconds, payout_delay_seconds = @payout_delay_seconds, updatetime = @updatetime
         WHERE id = @id`,
        row,
      );
      return changed === 1;
    },
    /** Replaces the sealed driver config only (e.g. a generated sandbox secret). */
    async setConfig(tx: WriteTx, id: number, configEnc: string): Promise<void> {
      await tx.run('UPDATE channels SET config_enc = ? WHERE id = ?', [configEnc, id]);
    },
    findById(tx: ReadTx, id: number): Promise<ChannelRow | undefined> {
      return tx.get('SELECT * FROM channels WHERE id = ?', [id]);
    },
    list(tx: ReadTx): Promise<ChannelRow[]> {
      return tx.all('SELECT * FROM channels ORDER BY id');
    },
    async link(tx: WriteTx, row: LinkRow): Promise<void> {
      await tx.run(
        `INSERT INTO merchant_channels (merchant_id, channel_id, service_rate, passage_rate, deposit_rate, base_rate, createtime)
         VALUES (@merchant_id, @channel_id, @service_rate, @passage_rate, @deposit_rate, @base_rate, @createtime)
         ON CONFLICT (merchant_id, channel_id) DO UPDATE SET service_rate = excluded.service_rate,
           passage_rate = excluded.passage_rate, deposit_rate = excluded.deposit_rate, base_rate = excluded.base_rate`,
        row,
      );
    },
    async unlink(tx: WriteTx, merchantId: number, channelId: number): Promise<boolean> {
      return (await tx.run('DELETE FROM merchant_channels WHERE merchant_id = ? AND channel_id = ?', [merchantId, channelId])) === 1;
    },
    linksOfChannel(tx: ReadTx, channelId: number): Promise<LinkRow[]> {
      return tx.all('SELECT * FROM merchant_channels WHERE channel_id = ? ORDER BY merchant_id', [channelId]);
    },
    linksOfMerchant(tx: ReadTx, merchantId: number): Promise<LinkRow[]> {
      return tx.all('SELECT * FROM merchant_channels WHERE merchant_id = ? ORDER BY channel_id', [merchantId]);
    },
    findLinked(tx: ReadTx, merchantId: number, channelId: number): Promise<LinkedChannelRow | undefined> {
      return tx.get(FIND_LINKED, [merchantId, channelId]);
    },
    /**
     * findLinked, with the row generation the link and channel were read at,
     * for a later claim that nothing changed since (order repository,
     * insertWithNonceIfCurrent).
     */
    async findLinkedWithGeneration(tx: ReadTx, merchantId: number, channelId: number): Promise<{ row: LinkedChannelRow; generation?: string } | undefined> {
      const found = await tx.get<LinkedChannelRow & { row_generation: string | null }>(FIND_LINKED_WITH_GENERATION, [merchantId, channelId]);
      if (!found) return undefined;
      const { row_generation: generation, ...row } = found;
      return generation === null ? { row } : { row, generation };
    },
    listEnabledLinked(tx: ReadTx, merchantId: number, category?: ChannelCategory): Promise<LinkedChannelRow[]> {
      return category
        ? tx.all(
            `SELECT ${LINKED_COLUMNS} FROM merchant_channels l JOIN channels c ON c.id = l.channel_id
             WHERE l.merchant_id = ? AND c.enabled = 1 AND c.category = ? ORDER BY c.id`,
            [merchantId, category],
          )
        : tx.all(
            `SELECT ${LINKED_COLUMNS} FROM merchant_channels l JOIN channels c ON c.id = l.channel_id
             WHERE l.merchant_id = ? AND c.enabled = 1 ORDER BY c.id`,
            [merchantId],
          );
    },
  };
}
export type ChannelRepository = ReturnType<typeof createChannelRepository>;
