/**
 * The service, assembled: store, secrets, repositories and services. Used
 * the same way by `merchant-console serve`, the CLI, tests, benchmarks and
 * the desktop main process (which passes its own master-key store and the
 * Electron build of better-sqlite3). The store is SQLite in the data dir,
 * or PostgreSQL when a database URL is given (team deployments).
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { createSecretBox, fileMasterKeyStore, type MasterKeyStore } from './crypto/secret-box';
import { verifyMasterKey } from './crypto/key-check';
import { databasePath, ensureDataDir } from './store/data-dir';
import { openStore } from './store/open-store';
import type { ReadTx, Store } from './store/store';
import { createRepositories, createWorkSignal, systemClock, type Clock } from './services/context';
import { createMerchantService } from './services/merchant-service';
import { createChannelService } from './services/channel-service';
import { createPaymentMethodService } from './services/payment-method-service';
import { createOrderService, type AlphaRegionCheck } from './services/order-service';
import { createRequestAuthService } from './services/request-auth-service';
import { callbackUrlPolicyOf, createSettingsService } from './services/settings-service';
import { endpointOfUrl, type ListenerEndpoint } from './callbacks/callback-url-policy';
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
import { createAuditService } from './services/audit-service';
import { createAccountService } from './services/account-service';
import { createApprovalService } from './services/approval-service';
import { createAdminActions } from './services/admin-actions';
import { createApprovalExecutors } from './services/approval-executors';
import { createApiWithdrawalService } from './services/api-withdrawal-service';

export interface ServiceOptions {
  /** The data dir: the SQLite store (unless databaseUrl), the default master key file, service.json. */
  dataDir: string;
  /** postgres://… selects PostgreSQL instead of the data dir's SQLite file. */
  databaseUrl?: string | undefined;
  clock?: Clock;
  /** Default: master.key in the data dir. */
  masterKeyStore?: MasterKeyStore;
  /** Path of a better-sqlite3 native binding (the desktop's Electron build). */
  nativeBinding?: string | undefined;
  /** Overrides the alpha card region check; by default the committed region data's. */
  alphaRegions?: AlphaRegionCheck;
  /** Callback delivery tuning (pool size, timeout; tests). */
  callbacks?: CallbackDispatcherOptions;
  /** Names this process in claims on background work (default host/pid/random). */
  instanceId?: string;
  /** PostgreSQL pool size (serve --pool-size); default the store's DEFAULT_POOL_SIZE. */
  poolSize?: number;
  /** How long a claim on background work holds before another instance may take it over (docs/deployment.md). */
  claimSeconds?: number;
}

export function newInstanceId(): string {
  return `${os.hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
}

export async function openService(options: ServiceOptions) {
  ensureDataDir(options.dataDir);
  const store: Store = await openStore(
    options.databaseUrl
      ? { kind: 'postgres', url: options.databaseUrl, poolSize: options.poolSize }
      : { kind: 'sqlite', file: databasePath(options.dataDir), nativeBinding: options.nativeBinding },
  );
  try {
    return await assemble(store, options);
  } catch (err) {
    await store.close();
    throw err;
  }
}

async function assemble(store: Store, options: ServiceOptions) {
  const keyStore = options.masterKeyStore ?? fileMasterKeyStore(options.dataDir);
  const secretBox = createSecretBox(keyStore.loadOrCreate());
  const repos = createRepositories();
  await verifyMasterKey(store, secretBox, repos);

  let publicUrlValue = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;
  const publicUrl = () => publicUrlValue;
  const clock = options.clock ?? systemClock;
  const workSignal = createWorkSignal();
  const instanceId = options.instanceId ?? newInstanceId();
  let ownListeners: ListenerEndpoint[] = [];
  const callbackPolicy = (tx: ReadTx) => callbackUrlPolicyOf(tx, repos.settings, ownListeners);

  const merchants = createMerchantService({ clock, secretBox, merchants: repos.merchants, callbackPolicy });
  const channels = createChannelService({ clock, secretBox, channels: repos.channels, merchants: repos.merchants });
  const paymentMethods = createPaymentMethodService({ clock, secretBox, paymentMethods: repos.paymentMethods, merchants: repos.merchants });
  const regions = createRegionService();
  const ledger = createLedgerService({ clock, ledger: repos.ledger, merchants: repos.merchants });
  const lifecycle = createOrderLifecycleService({ clock, workSignal, orders: repos.orders, lifecycle: repos.lifecycle, channels: repos.channels, ledger });
  const drivers = createChannelDrivers({ clock, publicUrl, config: channels.config });
  const orders = createOrderService({
    clock,
    secretBox,
    publicUrl,
    orders: repos.orders,
    channels,
    paymentMethods,
    alphaRegions: options.alphaRegions ?? regions.alphaCheck,
    ledger,
    lifecycle,
    drivers,
  });
  const callbacks = createCallbackService({
    clock,
    workSignal,
    callbacks: repos.callbacks,
    merchants: repos.merchants,
    orders: repos.orders,
    merchantService: merchants,
  });
  const orderReports = createOrderReportService({
    clock,
    publicUrl,
    store,
    orders: repos.orders,
    merchants: repos.merchants,
    channels: repos.channels,
    orderStats: repos.orderStats,
    callbacks,
    ledger,
    lifecycle,
  });
  // Every status change after creation queues a merchant callback, in the change's own unit of work.
  lifecycle.onTransition(async (tx, order) => {
    await callbacks.enqueue(tx, order, 'transition');
  });
  const idempotency = createIdempotencyService({ clock, idempotency: repos.idempotency });
  const orderAdmin = createOrderAdminService({
    publicUrl,
    orders: repos.orders,
    merchants: repos.merchants,
    channels: repos.channels,
    ledger,
    lifecycle,
    callbacks,
  });
  const requestAuth = createRequestAuthService({ clock, nonces: repos.nonces, merchants });
  const settings = createSettingsService({ settings: repos.settings });
  const audit = createAuditService({ clock, audit: repos.audit });
  const consoleAuth = createConsoleAuthService({ clock, secretBox, consoleAuth: repos.consoleAuth, accounts: repos.accounts, audit });
  const accounts = createAccountService({
    clock,
    secretBox,
    accounts: repos.accounts,
    merchants: repos.merchants,
    audit,
    endSessionsOf: (tx, accountId) => consoleAuth.endSessionsOf(tx, accountId),
  });
  // Channels, their notifications and the work the service does on its own (docs/order-lifecycle.md).
  const channelNotify = createChannelNotifyService({ clock, channels: repos.channels, orders: repos.orders, nonces: repos.nonces, drivers, lifecycle });
  const sandbox = createSandboxService({
    orders: repos.orders,
    merchants: repos.merchants,
    transitions: repos.lifecycle,
    channels,
    drivers,
    notify: channelNotify,
  });
  const adminActions = createAdminActions({ audit, merchants, channels, paymentMethods, orderAdmin, lifecycle, callbacks, sandbox, settings });
  const approvals = createApprovalService({
    clock,
    secretBox,
    approvals: repos.approvals,
    accounts: repos.accounts,
    merchants: repos.merchants,
    audit,
    ledger,
    verifyTotp: (tx, accountId, code) => accounts.verifyTotp(tx, accountId, code),
    executors: createApprovalExecutors({ secretBox, merchants: repos.merchants, orders, accounts, adminActions, audit }),
  });
  const apiWithdrawals = createApiWithdrawalService({ orders, approvals, ledger });
  const work = createServiceWork({
    approvals,
    store,
    clock,
    instanceId,
    orders: repos.orders,
    channels: repos.channels,
    merchants: repos.merchants,
    jobs: repos.lifecycle,
    callbackRepo: repos.callbacks,
    clusterLocks: repos.clusterLocks,
    drivers,
    lifecycle,
    callbacks,
    requestAuth,
    consoleAuth,
    idempotency,
    callbackOptions: options.callbacks,
    claimSeconds: options.claimSeconds,
    callbackPolicy,
  });

  let closed: Promise<void> | null = null;
  return {
    dataDir: options.dataDir,
    store,
    clock,
    instanceId,
    workSignal,
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
      audit,
      accounts,
      approvals,
      adminActions,
      apiWithdrawals,
    },
    drivers,
    /** Scheduled work (expiry, payouts, settlement, callbacks): `work.runDue()`; timers in background/background-work.ts. */
    work,
    /** Where pay pages and links point. */
    publicUrl,
    /** Set by the listener once it knows its address. */
    setPublicUrl(url: string): void {
      publicUrlValue = url.replace(/\/+$/, '');
    },
    /** Where this service answers (its listener, its public URL): callbacks never go there. */
    setOwnListeners(urls: readonly string[]): void {
      ownListeners = urls.map(endpointOfUrl).filter((e) => e !== null);
    },
    /** Closes the store after the units of work under way. */
    close(): Promise<void> {
      closed ??= store.close();
      return closed;
    },
  };
}
export type MerchantConsoleService = Awaited<ReturnType<typeof openService>>;
export type Services = MerchantConsoleService['services'];
