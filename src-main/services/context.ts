/**
 * What services share: the clock, where this instance is reached, and the
 * wake-up signal of the background work. Plain Node: nothing here may import
 * electron (the same services run in `serve`, tests, benchmarks and the
 * desktop main process). Each service declares the repositories and other
 * services it uses in its own deps; none gets the store's driver.
 */
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
import { createClusterLockRepository } from '../repositories/cluster-lock-repository';
import { createAccountRepository } from '../repositories/account-repository';
import { createApprovalRepository } from '../repositories/approval-repository';
import { createAuditRepository } from '../repositories/audit-repository';

export interface Clock {
  /** Unix seconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

/** Base URL where this instance's listener is reached (pay pages, links). */
export type PublicUrl = () => string;

/** Every repository, built once; the assembly (service.ts) hands each service the ones it declares. */
export function createRepositories() {
  return {
    merchants: createMerchantRepository(),
    channels: createChannelRepository(),
    paymentMethods: createPaymentMethodRepository(),
    orders: createOrderRepository(),
    nonces: createNonceRepository(),
    settings: createSettingsRepository(),
    consoleAuth: createConsoleAuthRepository(),
    orderStats: createOrderStatsRepository(),
    ledger: createLedgerRepository(),
    lifecycle: createOrderLifecycleRepository(),
    callbacks: createCallbackRepository(),
    idempotency: createIdempotencyRepository(),
    clusterLocks: createClusterLockRepository(),
    accounts: createAccountRepository(),
    approvals: createApprovalRepository(),
    audit: createAuditRepository(),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;

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
