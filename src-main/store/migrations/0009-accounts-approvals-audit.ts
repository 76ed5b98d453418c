import type { Migration } from './index';
import { PG } from './pg-types';

/**
 * Staff accounts, roles, two-person approval and the audit trail
 * (docs/accounts.md):
 *  - accounts (hashed passwords, sealed TOTP secrets), the merchants a
 *    limited account may act for, and sign-in throttling shared by every
 *    instance;
 *  - console sessions and one-time links (setup, password reset) bound to an
 *    account; the shared console token's sessions end here;
 *  - approval requests; a withdrawal's funds are held in the ledger while it
 *    waits (kinds withdrawal_hold / withdrawal_release, tied to the request);
 *  - merchants' withdrawal thresholds (console: default 0, every withdrawal;
 *    API: none, never held);
 *  - the audit log, hash-chained (audit_head holds the chain's end), which
 *    the service only ever appends to (triggers refuse updates and deletes).
 */
const TABLES = (t: { id: string; int: string; text: string }, withoutRowid: string) => `
      CREATE TABLE accounts (
        id ${t.id},
        login ${t.text} NOT NULL UNIQUE,
        display_name ${t.text} NOT NULL,
        -- scrypt$N$r$p$salt$hash (services/password-hash.ts)
        password_hash ${t.text} NOT NULL,
        role ${t.text} NOT NULL CHECK (role IN ('owner', 'admin', 'finance', 'operator', 'developer', 'viewer')),
        -- 1: platform staff (every merchant); 0: only the merchants in account_merchants.
        all_merchants ${t.int} NOT NULL DEFAULT 1 CHECK (all_merchants IN (0, 1)),
        enabled ${t.int} NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        totp_secret_enc ${t.text},
        totp_enabled ${t.int} NOT NULL DEFAULT 0 CHECK (totp_enabled IN (0, 1)),
        -- The time step of the last accepted code: a code is never accepted twice.
        totp_last_step ${t.int},
        password_changed_at ${t.int} NOT NULL,
        createtime ${t.int} NOT NULL,
        updatetime ${t.int} NOT NULL,
        CHECK (totp_enabled = 0 OR totp_secret_enc IS NOT NULL)
      );

      CREATE TABLE account_merchants (
        account_id ${t.int} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        merchant_id ${t.int} NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
        PRIMARY KEY (account_id, merchant_id)
      )${withoutRowid};

      -- Failed sign-ins per login name and per client address (docs/accounts.md, "Sign-in").
      CREATE TABLE auth_throttle (
        key ${t.text} PRIMARY KEY,
        failures ${t.int} NOT NULL,
        first_failure_at ${t.int} NOT NULL,
        blocked_until ${t.int} NOT NULL
      )${withoutRowid};

      ALTER TABLE console_sessions ADD COLUMN account_id ${t.int} REFERENCES accounts(id) ON DELETE CASCADE;
      -- password: the password was right, the TOTP code is awaited; enrol: the account must enrol TOTP first; full.
      ALTER TABLE console_sessions ADD COLUMN stage ${t.text} NOT NULL DEFAULT 'full' CHECK (stage IN ('password', 'enrol', 'full'));
      ALTER TABLE console_sessions ADD COLUMN address ${t.text};
      ALTER TABLE console_sessions ADD COLUMN user_agent ${t.text};
      CREATE INDEX console_sessions_by_account ON console_sessions(account_id);
      ALTER TABLE console_login_tokens ADD COLUMN purpose ${t.text} NOT NULL DEFAULT 'login' CHECK (purpose IN ('login', 'setup', 'password_reset'));
      ALTER TABLE console_login_tokens ADD COLUMN account_id ${t.int} REFERENCES accounts(id) ON DELETE CASCADE;

      ALTER TABLE merchants ADD COLUMN console_withdrawal_threshold ${t.int} NOT NULL DEFAULT 0 CHECK (console_withdrawal_threshold >= 0);
      ALTER TABLE merchants ADD COLUMN api_withdrawal_threshold ${t.int} CHECK (api_withdrawal_threshold >= 0);

      CREATE TABLE approval_requests (
        id ${t.id},
        kind ${t.text} NOT NULL CHECK (kind IN ('balance_adjustment', 'withdrawal', 'secret_rotation', 'channel_credentials', 'account_role')),
        merchant_id ${t.int} REFERENCES merchants(id),
        -- null: asked for by the merchant API (a held API withdrawal).
        requested_by ${t.int} REFERENCES accounts(id),
        requested_via ${t.text} NOT NULL CHECK (requested_via IN ('console', 'api', 'desktop')),
        -- JSON: what is done on approval; sealed where it carries secrets.
        payload ${t.text} NOT NULL,
        -- JSON: what will change, as the inbox shows it (amounts with fees, before and after).
        summary ${t.text} NOT NULL,
        state ${t.text} NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'rejected', 'expired', 'cancelled', 'failed')),
        createtime ${t.int} NOT NULL,
        expires_at ${t.int} NOT NULL,
        decided_by ${t.int} REFERENCES accounts(id),
        decided_at ${t.int},
        decision_note ${t.text},
        -- JSON: what the approval did (the order created, …); sealed where it carries a secret.
        result ${t.text},
        CHECK ((state = 'pending') = (decided_at IS NULL))
      );
      CREATE INDEX approval_requests_by_state ON approval_requests(state, expires_at);
      CREATE INDEX approval_requests_by_merchant ON approval_requests(merchant_id, id);

      CREATE TABLE audit_log (
        id ${t.id},
        at ${t.int} NOT NULL,
        actor_kind ${t.text} NOT NULL CHECK (actor_kind IN ('account', 'cli', 'desktop', 'system', 'anonymous', 'merchant')),
        account_id ${t.int},
        account_login ${t.text},
        role ${t.text},
        address ${t.text},
        user_agent ${t.text},
        action ${t.text} NOT NULL,
        target ${t.text} NOT NULL,
        merchant_id ${t.int},
        -- JSON, secrets redacted.
        before ${t.text},
        after ${t.text},
        prev_hash ${t.text} NOT NULL,
        hash ${t.text} NOT NULL
      );
      CREATE INDEX audit_log_by_time ON audit_log(at, id);
      CREATE INDEX audit_log_by_account ON audit_log(account_id, id);
      CREATE INDEX audit_log_by_action ON audit_log(action, id);
      CREATE INDEX audit_log_by_merchant ON audit_log(merchant_id, id);

      -- The end of the chain: appends lock this row, so entries are chained in one order on every instance.
      CREATE TABLE audit_head (
        id ${t.int} PRIMARY KEY CHECK (id = 1),
        last_id ${t.int} NOT NULL,
        last_hash ${t.text} NOT NULL
      );
      INSERT INTO audit_head (id, last_id, last_hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');

      -- The shared console token's sessions and links belong to nobody: they end here.
      DELETE FROM console_sessions;
      DELETE FROM console_login_tokens;
`;

const LEDGER_KINDS = `'buy_paid', 'sell_freeze', 'sell_paid_out', 'sell_release', 'adjustment', 'withdrawal_hold', 'withdrawal_release'`;
const LEDGER_CHECKS = `CHECK ((order_id IS NOT NULL) = (kind IN ('buy_paid', 'sell_freeze', 'sell_paid_out', 'sell_release'))),
        CHECK ((approval_id IS NOT NULL) = (kind IN ('withdrawal_hold', 'withdrawal_release')))`;

export const migration0009AccountsApprovalsAudit: Migration = {
  version: 9,
  name: 'accounts, roles, sessions bound to accounts, approval requests, withdrawal holds, the audit log',
  // SQLite cannot change a CHECK in place: ledger_transactions is rebuilt, with foreign keys off meanwhile.
  sqliteRebuildsTables: true,
  schema: {
    sqlite: `${TABLES({ id: 'INTEGER PRIMARY KEY', int: 'INTEGER', text: 'TEXT' }, ' WITHOUT ROWID')}
      CREATE TABLE ledger_transactions_new (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN (${LEDGER_KINDS})),
        merchant_id INTEGER NOT NULL REFERENCES merchants(id),
        order_id INTEGER REFERENCES orders(id),
        approval_id INTEGER REFERENCES approval_requests(id),
        reason TEXT NOT NULL,
        createtime INTEGER NOT NULL,
        ${LEDGER_CHECKS}
      );
      INSERT INTO ledger_transactions_new (id, kind, merchant_id, order_id, reason, createtime)
        SELECT id, kind, merchant_id, order_id, reason, createtime FROM ledger_transactions;
      DROP TABLE ledger_transactions;
      ALTER TABLE ledger_transactions_new RENAME TO ledger_transactions;
      CREATE UNIQUE INDEX ledger_transactions_once_per_order ON ledger_transactions(order_id, kind) WHERE order_id IS NOT NULL;
      CREATE INDEX ledger_transactions_by_merchant ON ledger_transactions(merchant_id, id);
      CREATE UNIQUE INDEX ledger_transactions_once_per_approval ON ledger_transactions(approval_id, kind) WHERE approval_id IS NOT NULL;

      CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE ON audit_log BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only');
      END;
      CREATE TRIGGER audit_log_append_only_delete BEFORE DELETE ON audit_log BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only');
      END;
`,
    postgres: `${TABLES({ id: PG.id, int: PG.int, text: PG.text }, '')}
      ALTER TABLE ledger_transactions ADD COLUMN approval_id ${PG.int} REFERENCES approval_requests(id);
      ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_kind_check;
      ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_check;
      ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_kind_check CHECK (kind IN (${LEDGER_KINDS}));
      ALTER TABLE ledger_transactions ADD ${LEDGER_CHECKS.split(',\n        ')[0]};
      ALTER TABLE ledger_transactions ADD ${LEDGER_CHECKS.split(',\n        ')[1]};
      CREATE UNIQUE INDEX ledger_transactions_once_per_approval ON ledger_transactions(approval_id, kind) WHERE approval_id IS NOT NULL;

      CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only';
      END $$;
      CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
`,
  },
};
