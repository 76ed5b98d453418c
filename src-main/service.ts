/**
 * The service, assembled: store, secrets, repositories and services. Used
 * the same way by `merchant-console serve`, the CLI, tests, benchmarks and
 * the desktop main process (which passes its own master-key store and the
 * Electron build of better-sqlite3).
 */
import type { Database } from 'better-sqlite3';
import { createSecretBox, fileMasterKeyStore, type MasterKeyStore } from './crypto/secret-box';
import { databasePath, ensureDataDir } from './store/data-dir';
import { openDatabase } from './store/database';
import { createWriteQueue, type WriteQueue } from './store/write-queue';
import { createRepositories, createWorkSignal, systemClock, type Clock, type ServiceContext } from './services/context';
import { createMerchantService } from './services/merchant-service';
import { createChannelService } from './services/channel-service';
import { createPaymentMethodService } from './services/payment-method-service';
import { createOrderService, type AlphaRegionCheck } from './services/order-service';
import { createRequestAuthService } from './services/request-auth-service';
import { createSettingsService } from './services/settings-service';
import { createConsoleAuthService } from './services/console-auth-service';
import { createOrderReportService } from './services/order-report-service';
import { createRegionService } from './regions/region-service';
import { createLedgerService } from './services/ledger-service';
import { createOrderLifecycleService } from './services/order-lifecycle-service';
import { createOrderAdminService } from './services/order-admin-service';
import { createChannelDrivers } from './channels/drivers';
import { createChannelNotifyService } from './services/channel-notify-service';
import { createSandboxService } from './services/sandbox-service';
import { createServiceWork } from './background/service-work';
import type { CallbackDispatcherOptions } from './background/callback-dispatcher';
import { createCallbackService } from './services/callback-service';
import { createIdempotencyService } from './services/idempotency-service';
import { DEFAULT_HOST, DEFAULT_PORT } from '../src-shared/constants';

export interface ServiceOptions {
  dataDir: string;
  clock?: Clock;
  masterKeyStore?: MasterKeyStore;
  /** Path of a better-sqlite3 native binding (the desktop's Electron build). */
  nativeBinding?: string;
  /** Overrides the alpha card region check; by default the committed region data's. */
  alphaRegions?: AlphaRegionCheck;
  /** Callback delivery tuning (pool size, timeout; tests). */
  callbacks?: CallbackDispatcherOptions;
}

export function openService(options: ServiceOptions) {
  ensureDataDir(options.dataDir);
  const db: Database = openDatabase(databasePath(options.dataDir), options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  const keyStore = options.masterKeyStore ?? fileMasterKeyStore(options.dataDir);
  let publicUrl = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;
  const ctx: ServiceContext = {
    db,
    clock: options.clock ?? systemClock,
    secretBox: createSecretBox(keyStore.loadOrCreate()),
    repos: createRepositories(db),
    publicUrl: () => publicUrl,
    workSignal: createWorkSignal(),
  };
  const merchants = createMerchantService(ctx);
  const channels = createChannelService(ctx);
  const paymentMethods = createPaymentMethodService(ctx);
  const regions = createRegionService();
  const ledger = createLedgerService(ctx);
  const lifecycle = createOrderLifecycleService(ctx, { ledger });
  const drivers = createChannelDrivers(ctx, channels.config);
  const orders = createOrderService(ctx, {
    channels,
    paymentMethods,
    alphaRegions: options.alphaRegions ?? regions.alphaCheck,
    ledger,
    lifecycle,
    drivers,
  });
  const callbacks = createCallbackService(ctx, { merchants });
  const orderReports = createOrderReportService(ctx, { ledger, lifecycle, callbacks });
  // Every status change after creation queues a merchant callback, in the change's own transaction.
  lifecycle.onTransition((order) => callbacks.enqueue(order, 'transition'));
  const idempotency = createIdempotencyService(ctx);
  const orderAdmin = createOrderAdminService(ctx, { ledger, lifecycle, callbacks, idempotency });
  const requestAuth = createRequestAuthService(ctx, merchants);
  const settings = createSettingsService(ctx);
  const consoleAuth = createConsoleAuthService(ctx);
  const writeQueue: WriteQueue = createWriteQueue(db);
  // Channels, their notifications and the work the service does on its own (docs/order-lifecycle.md).
  const channelNotify = createChannelNotifyService(ctx, { drivers, lifecycle });
  const sandbox = createSandboxService(ctx, { drivers, notify: channelNotify });
  const work = createServiceWork(ctx, { drivers, lifecycle, callbacks, write: (fn) => writeQueue.run(fn), callbackOptions: options.callbacks });

  let closed = false;
  return {
    dataDir: options.dataDir,
    ctx,
    db,
    writeQueue,
    services: {
      merchants,
      channels,
      paymentMethods,
      orders,
      requestAuth,
      settings,
      consoleAuth,
      orderReports,
      regions,
      ledger,
      lifecycle,
      orderAdmin,
      channelNotify,
      sandbox,
      callbacks,
      idempotency,
    },
    drivers,
    /** Scheduled work (expiry, payouts, settlement): `work.runDue()`; timers in background/background-work.ts. */
    work,
    /** Where pay pages and links point; set by the listener once it knows its address. */
    setPublicUrl(url: string): void {
      publicUrl = url.replace(/\/+$/, '');
    },
    close(): void {
      if (closed) return;
      closed = true;
      writeQueue.flush();
      db.close();
    },
  };
}
export type MerchantConsoleService = ReturnType<typeof openService>;
export type Services = MerchantConsoleService['services'];
