import { formatFen } from '../../../src-shared/money';
import { isEmptyStore, seedDemo } from '../../demo-seed';
import { normaliseBasePath, normalisePublicUrl, parseTrustProxy, startListener } from '../../http/server';
import { consoleBundleBuilt, consoleLoginUrl, defaultConsoleDir } from '../../http/console-routes';
import { startBackgroundWork } from '../../background/background-work';
import { startCheckpointer } from '../../store/checkpointer';
import { DEFAULT_RATE_LIMITS, formatRateLimitRule, parseRateLimitRule, RATE_LIMIT_SETTINGS_KEY, type RateLimitConfig, type RateLimitRule } from '../../http/rate-limit';
import type { MerchantConsoleService } from '../../service';
import { openService } from '../../service';
import { acquireDataDirLock } from '../../store/data-dir';
import { defineCommand, stringOption, UsageError, type CommandIo } from '../command';

export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'run the service headless: the merchant HTTP API on an embedded SQLite store',
  usage:
    'serve [--host 127.0.0.1] [--port 8787] [--base-path /addons/paychannel] [--public-url URL] [--demo]\n' +
    '      [--rate-limit-key 100/s|N/min|off] [--rate-limit-address 200/s|N/min|off] [--trust-proxy IP[/BITS],…]\n' +
    '  host, port and base path default to the listener settings stored in the data dir (console → Settings), then to the values shown',
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    'base-path': { type: 'string' },
    'public-url': { type: 'string' },
    demo: { type: 'boolean' },
    'rate-limit-key': { type: 'string' },
    'rate-limit-address': { type: 'string' },
    'trust-proxy': { type: 'string' },
  },
  positionals: 0,
  async run(args, io: CommandIo) {
    const portFlag = stringOption(args, 'port');
    if (portFlag !== undefined && (!/^[0-9]{1,5}$/.test(portFlag) || Number(portFlag) > 65535)) throw new UsageError('--port must be 0-65535');
    const hostFlag = stringOption(args, 'host');
    const publicUrlFlag = stringOption(args, 'public-url');
    let publicUrl: string | undefined;
    try {
      publicUrl = publicUrlFlag === undefined ? undefined : normalisePublicUrl(publicUrlFlag);
    } catch (err) {
      throw new UsageError(`--public-url: ${(err as Error).message}`);
    }

    const trustProxyFlag = stringOption(args, 'trust-proxy');
    let trustProxy: string[] | undefined;
    try {
      trustProxy = trustProxyFlag === undefined ? undefined : parseTrustProxy(trustProxyFlag);
    } catch (err) {
      throw new UsageError(`--trust-proxy: ${(err as Error).message}`);
    }
    const basePathFlag = stringOption(args, 'base-path');
    if (basePathFlag !== undefined) {
      try {
        normaliseBasePath(basePathFlag);
      } catch (err) {
        throw new UsageError(`--base-path: ${(err as Error).message}`);
      }
    }

    const lock = acquireDataDirLock(args.dataDir);
    let service;
    try {
      service = openService({ dataDir: args.dataDir });
    } catch (err) {
      lock.release();
      throw err;
    }
    // Flags win over the listener settings stored by the console, which win over the defaults.
    const stored = service.services.settings.listener();
    if (!stored.enabled && portFlag === undefined && hostFlag === undefined) {
      service.close();
      lock.release();
      throw new UsageError(
        'the embedded listener is switched off in the settings of this data dir (console → Settings → Listener); ' +
          'switch it on there, or pass --port (and --host) to listen anyway',
      );
    }
    const portText = portFlag ?? String(stored.port);
    const host = hostFlag ?? stored.host;
    const basePath = basePathFlag ?? stored.base_path;
    const demo = args.values.demo === true && isEmptyStore(service) ? seedDemo(service) : undefined;
    let rateLimits: RateLimitConfig;
    try {
      rateLimits = rateLimitsFor(service, stringOption(args, 'rate-limit-key'), stringOption(args, 'rate-limit-address'));
    } catch (err) {
      service.close();
      lock.release();
      throw new UsageError((err as Error).message);
    }

    const consoleDir = defaultConsoleDir(io.env);
    let listener;
    try {
      listener = await startListener(service, {
        console: { dir: consoleDir },
        host,
        port: Number(portText),
        basePath,
        publicUrl,
        logger: { level: io.env.MERCHANT_CONSOLE_LOG_LEVEL ?? 'warn' },
        rateLimits,
        trustProxy,
      });
    } catch (err) {
      service.close();
      lock.release();
      const code = (err as { code?: string }).code;
      if (code === 'EADDRINUSE') throw new UsageError(`port ${portText} on ${host} is already in use; pick another with --port`);
      // Name the host (it may come from the stored settings, not a flag) rather than print getaddrinfo's bare error.
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL') {
        throw new UsageError(`cannot listen on host ${host} (${code}: not an address of this machine); pick another with --host`);
      }
      throw err;
    }
    lock.describe({ url: listener.url, publicUrl: publicUrl ?? null });

    // Expiry, payouts, settlement and housekeeping (expired nonces and console logins); catches up on anything
    // that fell due while stopped.
    const background = startBackgroundWork(service, { onError: (err) => io.err(`background work: ${(err as Error).message}`) });
    // WAL checkpoints off the request thread (store/checkpointer.ts).
    const checkpointer = startCheckpointer(service.db, { onError: (message) => io.err(`checkpoint: ${message}`) });

    // Like Jupyter: a login link for the browser console at every start (single use; see docs/console.md).
    // Behind a proxy (--public-url) the browser reaches the console there, not on the bound address.
    const loginToken = service.services.consoleAuth.issueLoginToken();
    const consoleBase = publicUrl ?? listener.url;
    const summary = {
      listening: listener.url,
      merchant_api: `${listener.url}${basePath === '/' ? '' : basePath}/merchant/`,
      data_dir: args.dataDir,
      pid: process.pid,
      console_url: `${consoleBase}/console/`,
      console_login_url: consoleLoginUrl(consoleBase, loginToken.credential),
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
      io.out(`  data dir:     ${summary.data_dir}`);
      io.out(`  console:      ${summary.console_login_url}`);
      io.out('                (login link for a browser: works once; more with `merchant-console console-token new`)');
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

    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        io.err(`${signal}: draining connections and closing the store`);
        listener
          .close()
          .catch((err: unknown) => io.err(`error while closing the listener: ${(err as Error).message}`))
          .then(() => background.stop())
          .then(() => checkpointer.stop())
          .finally(() => {
            service.close();
            lock.release();
            resolve();
          });
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return undefined;
  },
});

/** Flags win over the stored settings, which win over the defaults. */
function rateLimitsFor(service: MerchantConsoleService, keyFlag: string | undefined, addressFlag: string | undefined): RateLimitConfig {
  const stored = service.ctx.repos.settings.get<{ per_api_key?: string; per_address?: string }>(RATE_LIMIT_SETTINGS_KEY) ?? {};
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
