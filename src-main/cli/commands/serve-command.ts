import { formatFen } from '../../../src-shared/money';
import { isEmptyStore, seedDemo } from '../../demo-seed';
import { normaliseBasePath, normalisePublicUrl, parseTrustProxy, startListener } from '../../http/server';
import { consoleBundleBuilt, defaultConsoleDir } from '../../http/console-routes';
import { consoleLinkUrl } from '../../../src-shared/console-api/methods';
import { REFERENCE_PAGE } from '../../http/openapi/reference-routes';
import { DEFAULT_RATE_LIMITS, formatRateLimitRule, parseRateLimitRule, RATE_LIMIT_SETTINGS_KEY, type RateLimitConfig, type RateLimitRule } from '../../http/rate-limit';
import { startHost } from '../../host';
import type { MerchantConsoleService } from '../../service';
import { openService } from '../../service';
import { acquireDataDirLock } from '../../store/data-dir';
import { defineCommand, parsedOption, poolSizeOf, serviceOptionsOf, stringOption, UsageError, type CommandIo } from '../command';

export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'run the service headless: the merchant HTTP API on the data dir\'s SQLite store, or on PostgreSQL (--database-url)',
  usage:
    'serve [--host 127.0.0.1] [--port 8787] [--base-path /addons/paychannel] [--public-url URL] [--demo]\n' +
    '      [--rate-limit-key 100/s|N/min|off] [--rate-limit-address 200/s|N/min|off] [--trust-proxy IP[/BITS],…]\n' +
    '      [--database-url postgres://… (or $MERCHANT_CONSOLE_DATABASE_URL)] [--pool-size 5 (or $MERCHANT_CONSOLE_POOL_SIZE)]\n' +
    '      [--master-key-file FILE (or $MERCHANT_CONSOLE_MASTER_KEY)]\n' +
    '  host, port and base path default to the listener settings stored in the store (console → Settings), then to the values shown;\n' +
    '  several instances may serve one PostgreSQL database (docs/deployment.md)',
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    'base-path': { type: 'string' },
    'public-url': { type: 'string' },
    demo: { type: 'boolean' },
    'rate-limit-key': { type: 'string' },
    'rate-limit-address': { type: 'string' },
    'trust-proxy': { type: 'string' },
    'pool-size': { type: 'string' },
  },
  positionals: 0,
  async run(args, io: CommandIo) {
    const portFlag = stringOption(args, 'port');
    if (portFlag !== undefined && (!/^[0-9]{1,5}$/.test(portFlag) || Number(portFlag) > 65535)) throw new UsageError('--port must be 0-65535');
    const hostFlag = stringOption(args, 'host');
    const publicUrl = parsedOption(args, 'public-url', normalisePublicUrl);
    const trustProxy = parsedOption(args, 'trust-proxy', parseTrustProxy);
    const basePathFlag = parsedOption(args, 'base-path', normaliseBasePath);
    const poolSize = poolSizeOf(stringOption(args, 'pool-size'), io.env, args.databaseUrl);

    const consoleDir = defaultConsoleDir(io.env);
    // One service per SQLite data dir (its lock); on PostgreSQL any number of instances share the database.
    const started = await startHost({
      lock: () => (args.databaseUrl ? null : acquireDataDirLock(args.dataDir)),
      openService: () => openService({ ...serviceOptionsOf(args, io.env), ...(poolSize !== undefined ? { poolSize } : {}) }),
      listen: (service) =>
        listenAsConfigured(service, {
          port: portFlag,
          host: hostFlag,
          basePath: basePathFlag,
          publicUrl,
          trustProxy,
          demo: args.values.demo === true,
          rateLimitKey: stringOption(args, 'rate-limit-key'),
          rateLimitAddress: stringOption(args, 'rate-limit-address'),
          consoleDir,
          logLevel: io.env.MERCHANT_CONSOLE_LOG_LEVEL ?? 'warn',
        }),
      // Expiry, payouts, settlement, callbacks and housekeeping; catches up on anything that fell due while stopped.
      runtime: { onError: (source, message) => io.err(`${source}: ${message}`) },
      warn: (line) => io.err(line),
    });
    const { service } = started;
    const { listener, basePath, demo, rateLimits } = started.listening;
    // Signals are handled from here on: a supervisor that stops serve as soon as it printed its summary gets a clean drain.
    const stopped = new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        io.err(`${signal}: draining connections and closing the store`);
        void started.stop().finally(resolve);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });

    // A store without accounts: a one-time link where the first owner is created (docs/accounts.md, "Bootstrap").
    // Behind a proxy (--public-url) the browser reaches the console there, not on the bound address.
    const setupLink = await service.store.write((tx) => service.services.consoleAuth.issueSetupLink(tx));
    const consoleBase = publicUrl ?? listener.url;
    const summary = {
      listening: listener.url,
      merchant_api: `${listener.url}${basePath === '/' ? '' : basePath}/merchant/`,
      // The OpenAPI document's readable page (docs/api.md, "API reference"), where a browser reaches it.
      api_reference: `${consoleBase}${normaliseBasePath(basePath)}${REFERENCE_PAGE}`,
      data_dir: args.dataDir,
      store: service.store.dialect === 'postgres' ? service.store.location : 'sqlite',
      instance: service.instanceId,
      pid: process.pid,
      console_url: `${consoleBase}/console/`,
      /** Only while the store has no account: where the first owner is created (works once, 24 h). */
      console_setup_url: setupLink ? consoleLinkUrl(consoleBase, 'setup', setupLink.credential) : null,
      console_built: consoleBundleBuilt(consoleDir),
      rate_limits: { per_api_key: formatRateLimitRule(rateLimits.perApiKey), per_address: formatRateLimitRule(rateLimits.perAddress) },
      demo: demo
        ? {
            merchant_id: demo.merchant.id,
            api_key: demo.merchant.api_key,
            api_secret: demo.merchant.api_secret,
            sign_type: demo.merchant.sign_type,
            channels: demo.channels.map((c) => ({ id: c.id, category: c.category, name: c.name })),
            opening_balance: demo.openingBalance,
          }
        : null,
    };
    if (args.json) io.out(JSON.stringify(summary));
    else {
      io.out(`merchant-console listening on ${summary.listening}`);
      io.out(`  merchant API: ${summary.merchant_api}`);
      io.out(`  API docs:     ${summary.api_reference} (OpenAPI 3.1: ../openapi.json)`);
      io.out(`  data dir:     ${summary.data_dir}`);
      if (summary.store !== 'sqlite') io.out(`  store:        ${summary.store} (instance ${summary.instance})`);
      io.out(`  console:      ${summary.console_url}`);
      if (summary.console_setup_url) {
        io.out(`  first owner:  ${summary.console_setup_url}`);
        io.out('                (no account yet: open this link to create the owner account; it works once, within 24 h)');
      }
      if (!summary.console_built) io.out(`                the console is not built yet: run \`npm run build:console\` (output ${consoleDir})`);
      io.out(`  rate limits:  ${summary.rate_limits.per_api_key} per api_key, ${summary.rate_limits.per_address} per client address`);
      if (summary.demo) {
        io.out('  demo merchant seeded (the secret is shown only now):');
        io.out(`    merchant_id: ${summary.demo.merchant_id}`);
        io.out(`    api_key:     ${summary.demo.api_key}`);
        io.out(`    api_secret:  ${summary.demo.api_secret}`);
        io.out(`    channels:    ${summary.demo.channels.map((c) => `${c.id}=${c.category}`).join(', ')}`);
        io.out(`    balance:     ${formatFen(summary.demo.opening_balance)} CNY available (operator adjustment)`);
      }
    }

    await stopped;
    return undefined;
  },
});

/** What serve's flags say about its listener; undefined: the stored setting, then the default. */
interface ListenFlags {
  port: string | undefined;
  host: string | undefined;
  basePath: string | undefined;
  publicUrl: string | undefined;
  trustProxy: string[] | undefined;
  demo: boolean;
  rateLimitKey: string | undefined;
  rateLimitAddress: string | undefined;
  consoleDir: string;
  logLevel: string;
}

/** serve's start on the open service: the demo merchant when asked for, then the listener as flags and stored settings say. */
async function listenAsConfigured(service: MerchantConsoleService, flags: ListenFlags) {
  // Flags win over the listener settings stored by the console, which win over the defaults.
  const stored = await service.store.read((tx) => service.services.settings.listener(tx));
  if (!stored.enabled && flags.port === undefined && flags.host === undefined) {
    throw new UsageError(
      'the embedded listener is switched off in the settings of this store (console → Settings → Listener); ' +
        'switch it on there, or pass --port (and --host) to listen anyway',
    );
  }
  const portText = flags.port ?? String(stored.port);
  const host = flags.host ?? stored.host;
  const basePath = flags.basePath ?? stored.base_path;
  const demo = flags.demo && (await isEmptyStore(service)) ? await seedDemo(service) : undefined;
  let rateLimits: RateLimitConfig;
  try {
    rateLimits = await rateLimitsFor(service, flags.rateLimitKey, flags.rateLimitAddress);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  try {
    const listener = await startListener(service, {
      console: { dir: flags.consoleDir },
      host,
      port: Number(portText),
      basePath,
      publicUrl: flags.publicUrl,
      logger: { level: flags.logLevel },
      rateLimits,
      trustProxy: flags.trustProxy,
    });
    return { listener, url: listener.url, publicUrl: flags.publicUrl ?? null, basePath, demo, rateLimits };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${portText} on ${host} is already in use; pick another with --port`);
    // Name the host (it may come from the stored settings, not a flag) rather than print getaddrinfo's bare error.
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL') {
      throw new UsageError(`cannot listen on host ${host} (${code}: not an address of this machine); pick another with --host`);
    }
    throw err;
  }
}

/** Flags win over the stored settings, which win over the defaults. */
async function rateLimitsFor(service: MerchantConsoleService, keyFlag: string | undefined, addressFlag: string | undefined): Promise<RateLimitConfig> {
  const stored =
    (await service.store.read((tx) => service.services.settings.get<{ per_api_key?: string; per_address?: string }>(tx, RATE_LIMIT_SETTINGS_KEY))) ?? {};
  // An error names where the bad rule came from: the flag, or the stored setting.
  const parse = (rule: string, from: string): RateLimitRule | null => {
    try {
      return parseRateLimitRule(rule);
    } catch (err) {
      throw new Error(`${from}: ${(err as Error).message}`);
    }
  };
  const pick = (flag: string | undefined, flagName: string, setting: string | undefined, fallback: RateLimitRule | null): RateLimitRule | null =>
    flag !== undefined ? parse(flag, `--${flagName}`) : setting !== undefined ? parse(setting, `stored setting ${flagName}`) : fallback;
  return {
    perApiKey: pick(keyFlag, 'rate-limit-key', stored.per_api_key, DEFAULT_RATE_LIMITS.perApiKey),
    perAddress: pick(addressFlag, 'rate-limit-address', stored.per_address, DEFAULT_RATE_LIMITS.perAddress),
  };
}
