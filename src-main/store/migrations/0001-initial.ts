import type { Migration } from './index';
import { PG } from './pg-types';

const SQLITE = `
      CREATE TABLE merchants (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        api_key TEXT NOT NULL UNIQUE,
        api_secret_enc TEXT NOT NULL,
        sign_type TEXT NOT NULL CHECK (sign_type IN ('hmac-sha256', 'md5')),
        callback_url TEXT,
        enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        createtime INTEGER NOT NULL,
        updatetime INTEGER NOT NULL
      );

      CREATE TABLE channels (
        id INTEGER PRIMARY KEY,
        category TEXT NOT NULL CHECK (category IN ('alpha', 'beta', 'gamma')),
        name TEXT NOT NULL,
        pay_method TEXT NOT NULL,
        driver TEXT NOT NULL DEFAULT 'sandbox',
        config_enc TEXT,
        service_rate TEXT NOT NULL DEFAULT '0',
        passage_rate TEXT NOT NULL DEFAULT '0',
        deposit_rate INTEGER NOT NULL DEFAULT 0,
        base_rate INTEGER NOT NULL DEFAULT 0,
        min_amount INTEGER NOT NULL DEFAULT 1 CHECK (min_amount > 0),
        max_amount INTEGER NOT NULL CHECK (max_amount >= min_amount),
        enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        createtime INTEGER NOT NULL,
        updatetime INTEGER NOT NULL
      );

      -- A link may override any fee setting; NULL means "the channel's".
      CREATE TABLE merchant_channels (
        merchant_id INTEGER NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
        channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
        service_rate TEXT,
        passage_rate TEXT,
        deposit_rate INTEGER,
        base_rate INTEGER,
        createtime INTEGER NOT NULL,
        PRIMARY KEY (merchant_id, channel_id)
      ) WITHOUT ROWID;
      CREATE INDEX merchant_channels_by_channel ON merchant_channels(channel_id);

      -- Payee accounts of sell orders: the merchant's own settlement accounts
      -- (source 'operator') and the accounts given in alpha requests ('alpha').
      CREATE TABLE payment_methods (
        id INTEGER PRIMARY KEY,
        merchant_id INTEGER NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('wxpay', 'alipay', 'bank')),
        source TEXT NOT NULL CHECK (source IN ('operator', 'alpha')),
        bank TEXT NOT NULL DEFAULT '',
        sub_bank TEXT NOT NULL DEFAULT '',
        card_number_enc TEXT NOT NULL,
        card_number_masked TEXT NOT NULL,
        card_fingerprint TEXT NOT NULL,
        real_name TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        createtime INTEGER NOT NULL,
        updatetime INTEGER NOT NULL
      );
      CREATE INDEX payment_methods_by_merchant ON payment_methods(merchant_id, kind, source, enabled);
      CREATE UNIQUE INDEX payment_methods_alpha_card ON payment_methods(merchant_id, kind, card_fingerprint) WHERE source = 'alpha';

      CREATE TABLE orders (
        id INTEGER PRIMARY KEY,
        order_no TEXT NOT NULL UNIQUE,
        merchant_id INTEGER NOT NULL REFERENCES merchants(id),
        channel_id INTEGER NOT NULL REFERENCES channels(id),
        order_type INTEGER NOT NULL CHECK (order_type IN (1, 2)),
        status TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'confirmed', 'completed', 'cancelled')),
        pay_method TEXT NOT NULL CHECK (pay_method IN ('wxpay', 'alipay', 'bank')),
        cny_amount INTEGER NOT NULL CHECK (cny_amount > 0),
        service_rate TEXT NOT NULL,
        passage_rate TEXT NOT NULL,
        deposit_rate INTEGER NOT NULL,
        base_rate INTEGER NOT NULL,
        service_amount INTEGER NOT NULL,
        passage_amount INTEGER NOT NULL,
        deposit_amount INTEGER NOT NULL,
        channel_amount INTEGER NOT NULL,
        merchant_actual_amount INTEGER NOT NULL CHECK (merchant_actual_amount > 0),
        customer_name TEXT,
        payment_method_id INTEGER REFERENCES payment_methods(id),
        payment_method_snapshot TEXT,
        customer_payment_method TEXT,
        alpha_data_enc TEXT,
        pay_token TEXT UNIQUE,
        expires_at INTEGER,
        createtime INTEGER NOT NULL,
        updatetime INTEGER NOT NULL
      );
      -- The list query always has merchant_id, sorts by (createtime, id) desc
      -- and may filter on status, order_type and a createtime range: one index
      -- per combination of the equality filters, each ending in the sort key.
      CREATE INDEX orders_m_time ON orders(merchant_id, createtime, id);
      CREATE INDEX orders_m_status_time ON orders(merchant_id, status, createtime, id);
      CREATE INDEX orders_m_type_time ON orders(merchant_id, order_type, createtime, id);
      CREATE INDEX orders_m_type_status_time ON orders(merchant_id, order_type, status, createtime, id);

      CREATE TABLE nonces (
        api_key TEXT NOT NULL,
        nonce TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (api_key, nonce)
      ) WITHOUT ROWID;
      CREATE INDEX nonces_by_expiry ON nonces(expires_at);

      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
`;

export const migration0001Initial: Migration = {
  version: 1,
  name: 'initial: merchants, channels, links, payment methods, orders, nonces, settings',
  schema: {
    sqlite: SQLITE,
    postgres: `
      CREATE TABLE merchants (
        id ${PG.id},
        name ${PG.text} NOT NULL,
        api_key ${PG.text} NOT NULL UNIQUE,
        api_secret_enc ${PG.text} NOT NULL,
        sign_type ${PG.text} NOT NULL CHECK (sign_type IN ('hmac-sha256', 'md5')),
        callback_url ${PG.text},
        enabled ${PG.int} NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        createtime ${PG.int} NOT NULL,
        updatetime ${PG.int} NOT NULL
      );

      CREATE TABLE channels (
        id ${PG.id},
        category ${PG.text} NOT NULL CHECK (category IN ('alpha', 'beta', 'gamma')),
        name ${PG.text} NOT NULL,
        pay_method ${PG.text} NOT NULL,
        driver ${PG.text} NOT NULL DEFAULT 'sandbox',
        config_enc ${PG.text},
        service_rate ${PG.text} NOT NULL DEFAULT '0',
        passage_rate ${PG.text} NOT NULL DEFAULT '0',
        deposit_rate ${PG.int} NOT NULL DEFAULT 0,
        base_rate ${PG.int} NOT NULL DEFAULT 0,
        min_amount ${PG.int} NOT NULL DEFAULT 1 CHECK (min_amount > 0),
        max_amount ${PG.int} NOT NULL CHECK (max_amount >= min_amount),
        enabled ${PG.int} NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        createtime ${PG.int} NOT NULL,
        updatetime ${PG.int} NOT NULL
      );

      -- A link may override any fee setting; NULL means "the channel's".
      CREATE TABLE merchant_channels (
        merchant_id ${PG.int} NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
        channel_id ${PG.int} NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
        service_rate ${PG.text},
        passage_rate ${PG.text},
        deposit_rate ${PG.int},
        base_rate ${PG.int},
        createtime ${PG.int} NOT NULL,
        PRIMARY KEY (merchant_id, channel_id)
      );
      CREATE INDEX merchant_channels_by_channel ON merchant_channels(channel_id);

      -- Payee accounts of sell orders: the merchant's own settlement accounts
      -- (source 'operator') and the accounts given in alpha requests ('alpha').
      CREATE TABLE payment_methods (
        id ${PG.id},
        merchant_id ${PG.int} NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
        kind ${PG.text} NOT NULL CHECK (kind IN ('wxpay', 'alipay', 'bank')),
        source ${PG.text} NOT NULL CHECK (source IN ('operator', 'alpha')),
        bank ${PG.text} NOT NULL DEFAULT '',
        sub_bank ${PG.text} NOT NULL DEFAULT '',
        card_number_enc ${PG.text} NOT NULL,
        card_number_masked ${PG.text} NOT NULL,
        card_fingerprint ${PG.text} NOT NULL,
        real_name ${PG.text} NOT NULL,
        enabled ${PG.int} NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        createtime ${PG.int} NOT NULL,
        updatetime ${PG.int} NOT NULL
      );
      CREATE INDEX payment_methods_by_merchant ON payment_methods(merchant_id, kind, source, enabled);
      CREATE UNIQUE INDEX payment_methods_alpha_card ON payment_methods(merchant_id, kind, card_fingerprint) WHERE source = 'alpha';

      CREATE TABLE orders (
        id ${PG.id},
        order_no ${PG.text} NOT NULL UNIQUE,
        merchant_id ${PG.int} NOT NULL REFERENCES merchants(id),
        channel_id ${PG.int} NOT NULL REFERENCES channels(id),
        order_type ${PG.int} NOT NULL CHECK (order_type IN (1, 2)),
        status ${PG.text} NOT NULL CHECK (status IN ('pending', 'paid', 'confirmed', 'completed', 'cancelled')),
        pay_method ${PG.text} NOT NULL CHECK (pay_method IN ('wxpay', 'alipay', 'bank')),
        cny_amount ${PG.int} NOT NULL CHECK (cny_amount > 0),
        service_rate ${PG.text} NOT NULL,
        passage_rate ${PG.text} NOT NULL,
        deposit_rate ${PG.int} NOT NULL,
        base_rate ${PG.int} NOT NULL,
        service_amount ${PG.int} NOT NULL,
        passage_amount ${PG.int} NOT NULL,
        deposit_amount ${PG.int} NOT NULL,
        channel_amount ${PG.int} NOT NULL,
        merchant_actual_amount ${PG.int} NOT NULL CHECK (merchant_actual_amount > 0),
        customer_name ${PG.text},
        payment_method_id ${PG.int} REFERENCES payment_methods(id),
        payment_method_snapshot ${PG.text},
        customer_payment_method ${PG.text},
        alpha_data_enc ${PG.text},
        pay_token ${PG.text} UNIQUE,
        expires_at ${PG.int},
        createtime ${PG.int} NOT NULL,
        updatetime ${PG.int} NOT NULL
      );
      -- The list query always has merchant_id, sorts by (createtime, id) desc
      -- and may filter on status, order_type and a createtime range: one index
      -- per combination of the equality filters, each ending in the sort key.
      CREATE INDEX orders_m_time ON orders(merchant_id, createtime, id);
      CREATE INDEX orders_m_status_time ON orders(merchant_id, status, createtime, id);
      CREATE INDEX orders_m_type_time ON orders(merchant_id, order_type, createtime, id);
      CREATE INDEX orders_m_type_status_time ON orders(merchant_id, order_type, status, createtime, id);

      CREATE TABLE nonces (
        api_key ${PG.text} NOT NULL,
        nonce ${PG.text} NOT NULL,
        expires_at ${PG.int} NOT NULL,
        PRIMARY KEY (api_key, nonce)
      );
      CREATE INDEX nonces_by_expiry ON nonces(expires_at);

      CREATE TABLE settings (
        key ${PG.text} PRIMARY KEY,
        value ${PG.text} NOT NULL
      );
`,
  },
};
