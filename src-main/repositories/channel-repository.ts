import type { Database } from 'better-sqlite3';
import type { ChannelCategory, ChannelDriver } from '../../src-shared/constants';

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

export function createChannelRepository(db: Database) {
  const insert = db.prepare<NewChannelRow>(
    `INSERT INTO channels (category, name, pay_method, driver, config_enc, service_rate, passage_rate, deposit_rate, base_rate,
       min_amount, max_amount, enabled, pay_timeout_seconds, settle_delay_seconds, payout_delay_seconds, createtime, updatetime)
     VALUES (@category, @name, @pay_method, @driver, @config_enc, @service_rate, @passage_rate, @deposit_rate, @base_rate,
       @min_amount, @max_amount, @enabled, @pay_timeout_seconds, @settle_delay_seconds, @payout_delay_seconds, @createtime, @createtime)`,
  );
  const update = db.prepare<Omit<ChannelRow, 'createtime' | 'category' | 'driver'>>(
    `UPDATE channels SET name = @name, pay_method = @pay_method, config_enc = @config_enc, service_rate = @service_rate,
       passage_rate = @passage_rate, deposit_rate = @deposit_rate, base_rate = @base_rate, min_amount = @min_amount,
       max_amount = @max_amount, enabled = @enabled, pay_timeout_seconds = @pay_timeout_seconds,
       settle_delay_seconds = @settle_delay_seconds, payout_delay_seconds = @payout_delay_seconds, updatetime = @updatetime
     WHERE id = @id`,
  );
  const byId = db.prepare<[number], ChannelRow>('SELECT * FROM channels WHERE id = ?');
  const setConfig = db.prepare<[string, number]>('UPDATE channels SET config_enc = ? WHERE id = ?');
  const all = db.prepare<[], ChannelRow>('SELECT * FROM channels ORDER BY id');
  const link = db.prepare<LinkRow>(
    `INSERT INTO merchant_channels (merchant_id, channel_id, service_rate, passage_rate, deposit_rate, base_rate, createtime)
     VALUES (@merchant_id, @channel_id, @service_rate, @passage_rate, @deposit_rate, @base_rate, @createtime)
     ON CONFLICT (merchant_id, channel_id) DO UPDATE SET service_rate = excluded.service_rate,
       passage_rate = excluded.passage_rate, deposit_rate = excluded.deposit_rate, base_rate = excluded.base_rate`,
  );
  const unlink = db.prepare<[number, number]>('DELETE FROM merchant_channels WHERE merchant_id = ? AND channel_id = ?');
  const linksOfChannel = db.prepare<[number], LinkRow>('SELECT * FROM merchant_channels WHERE channel_id = ? ORDER BY merchant_id');
  const linksOfMerchant = db.prepare<[number], LinkRow>('SELECT * FROM merchant_channels WHERE merchant_id = ? ORDER BY channel_id');
  const linked = db.prepare<[number, number], LinkedChannelRow>(
    `SELECT ${LINKED_COLUMNS} FROM merchant_channels l JOIN channels c ON c.id = l.channel_id
     WHERE l.merchant_id = ? AND l.channel_id = ?`,
  );
  const enabledLinked = db.prepare<[number], LinkedChannelRow>(
    `SELECT ${LINKED_COLUMNS} FROM merchant_channels l JOIN channels c ON c.id = l.channel_id
     WHERE l.merchant_id = ? AND c.enabled = 1 ORDER BY c.id`,
  );
  const enabledLinkedByCategory = db.prepare<[number, string], LinkedChannelRow>(
    `SELECT ${LINKED_COLUMNS} FROM merchant_channels l JOIN channels c ON c.id = l.channel_id
     WHERE l.merchant_id = ? AND c.enabled = 1 AND c.category = ? ORDER BY c.id`,
  );

  return {
    insert(row: NewChannelRow): number {
      return Number(insert.run(row).lastInsertRowid);
    },
    update(row: Omit<ChannelRow, 'createtime' | 'category' | 'driver'>): boolean {
      return update.run(row).changes === 1;
    },
    /** Replaces the sealed driver config only (e.g. a generated sandbox secret). */
    setConfig(id: number, configEnc: string): void {
      setConfig.run(configEnc, id);
    },
    findById(id: number): ChannelRow | undefined {
      return byId.get(id);
    },
    list(): ChannelRow[] {
      return all.all();
    },
    link(row: LinkRow): void {
      link.run(row);
    },
    unlink(merchantId: number, channelId: number): boolean {
      return unlink.run(merchantId, channelId).changes === 1;
    },
    linksOfChannel(channelId: number): LinkRow[] {
      return linksOfChannel.all(channelId);
    },
    linksOfMerchant(merchantId: number): LinkRow[] {
      return linksOfMerchant.all(merchantId);
    },
    findLinked(merchantId: number, channelId: number): LinkedChannelRow | undefined {
      return linked.get(merchantId, channelId);
    },
    listEnabledLinked(merchantId: number, category?: ChannelCategory): LinkedChannelRow[] {
      return category ? enabledLinkedByCategory.all(merchantId, category) : enabledLinked.all(merchantId);
    },
  };
}
export type ChannelRepository = ReturnType<typeof createChannelRepository>;
