/**
 * What every service is built from. Plain Node: nothing here may import
 * electron (the same services run in `serve`, tests, benchmarks and the
 * desktop main process).
 */
import type { Database } from 'better-sqlite3';
import type { SecretBox } from '../crypto/secret-box';
import { createChannelRepository } from '../repositories/channel-repository';
import { createLedgerRepository } from '../repositories/ledger-repository';
import { createCallbackRepository } from '../repositories/callback-repository';
import { createIdempotencyRepository } from '../repositories/idempotency-repository';
import { createOrderLifecycleRepository } from '../repositories/order-lifecycle-repository';
import { createMerchantRepository } from '../repositories/merchant-repository';
import { createNonceRepository } from '../repositories/nonce-repository';
import { createOrderRepository } from '../repositories/order-repository';
import { createPaymentMethodRepository } from '../repositories/payment-method-repository';
import { createSettingsRepository } from '../repositories/settings-repository';
import { createConsoleAuthRepository } from '../repositories/console-auth-repository';
import { createOrderStatsRepository } from '../repositories/order-stats-repository';

export interface Clock {
  /** Unix seconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

export function createRepositories(db: Database) {
  return {
    merchants: createMerchantRepository(db),
    channels: createChannelRepository(db),
    paymentMethods: createPaymentMethodRepository(db),
    orders: createOrderRepository(db),
    nonces: createNonceRepository(db),
    settings: createSettingsRepository(db),
    consoleAuth: createConsoleAuthRepository(db),
    orderStats: createOrderStatsRepository(db),
    ledger: createLedgerRepository(db),
    lifecycle: createOrderLifecycleRepository(db),
    callbacks: createCallbackRepository(db),
    idempotency: createIdempotencyRepository(db),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;

export interface ServiceContext {
  db: Database;
  clock: Clock;
  secretBox: SecretBox;
  repos: Repositories;
  /** Base URL where the embedded listener is reachable (pay pages, links). */
  publicUrl(): string;
  /** Tells the background worker that work may be due now (a hint; harmless when spurious). */
  workSignal: WorkSignal;
}

export interface WorkSignal {
  notify(): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

export function createWorkSignal(): WorkSignal {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const l of listeners) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
