/**
 * CLI plumbing: each command declares its options (node:util parseArgs
 * shapes) and a run function; every command gets --data-dir and --json.
 * Output is human text, or with --json exactly one JSON document on stdout
 * (snake_case keys). Errors go to stderr with a non-zero exit.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AppError, isAppError } from '../../src-shared/errors';
import { resolveDataDir, runningServiceInfo } from '../store/data-dir';
import { describeStorageProblem, storageProblemOf } from '../store/storage-errors';
import path from 'node:path';
import { explicitFileMasterKeyStore, inlineMasterKeyStore, type MasterKeyStore } from '../crypto/secret-box';
import { openService, type MerchantConsoleService, type ServiceOptions } from '../service';
import { checkDatabaseUrl, DATABASE_URL_ENV } from '../store/open-store';

type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
  env: NodeJS.ProcessEnv;
}

export interface CommandArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  json: boolean;
  dataDir: string;
  /** postgres://… (--database-url or $MERCHANT_CONSOLE_DATABASE_URL): the team store instead of the data dir's SQLite file. */
  databaseUrl: string | undefined;
  /** Where the master key comes from (--master-key-file, $MERCHANT_CONSOLE_MASTER_KEY_FILE, $MERCHANT_CONSOLE_MASTER_KEY); undefined: the data dir's master.key. */
  masterKeyStore: MasterKeyStore | undefined;
}

export interface CommandDef {
  /** Words after the program name, e.g. "merchant create". */
  name: string;
  summary: string;
  usage: string;
  options?: OptionSpec;
  /** Positional arguments expected (exact count). */
  positionals?: number;
  /** Returns the value to print: with --json as JSON, else `human(value)`. */
  run(args: CommandArgs, io: CommandIo): Promise<unknown> | unknown;
  /** Text for humans; without it the value is printed as JSON. */
  human?(value: unknown): string;
}

/** Ties a command's human formatter to the type its run returns. */
export function defineCommand<T>(
  def: Omit<CommandDef, 'run' | 'human'> & { run(args: CommandArgs, io: CommandIo): T | Promise<T>; human?(value: T): string },
): CommandDef {
  return def as CommandDef;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const COMMON_OPTIONS = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'master-key-file': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpec;

/**
 * `--amount -50` → `--amount=-50`: parseArgs would otherwise read `-50` as
 * an option. Only for string options and values that look like numbers.
 */
export function joinNegativeValues(argv: string[], options: OptionSpec): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-[0-9]/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

export function parseCommandArgs(def: CommandDef, argv: string[], env: NodeJS.ProcessEnv): CommandArgs & { help: boolean } {
  let parsed;
  try {
    const options = { ...COMMON_OPTIONS, ...def.options };
    parsed = parseArgs({ args: joinNegativeValues(argv, options), options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const help = values.help === true;
  if (!help && def.positionals !== undefined && positionals.length !== def.positionals) {
    throw new UsageError(`expected ${def.positionals} argument(s), got ${positionals.length}`);
  }
  let databaseUrl: string | undefined;
  const urlFlag = values['database-url'] as string | undefined;
  const urlText = urlFlag ?? (env[DATABASE_URL_ENV] || undefined);
  try {
    databaseUrl = urlText === undefined ? undefined : checkDatabaseUrl(urlText);
  } catch (err) {
    throw new UsageError(`${urlFlag !== undefined ? '--database-url' : `$${DATABASE_URL_ENV}`}: ${(err as Error).message}`);
  }
  return {
    values: values as CommandArgs['values'],
    positionals,
    json: values.json === true,
    dataDir: resolveDataDir(values['data-dir'] as string | undefined, env),
    databaseUrl,
    masterKeyStore: masterKeyStoreOf(values['master-key-file'] as string | undefined, env),
    help,
  };
}

export const MASTER_KEY_FILE_ENV = 'MERCHANT_CONSOLE_MASTER_KEY_FILE';
/** How long an instance's claim on background work holds (seconds; docs/deployment.md). */
export const CLAIM_SECONDS_ENV = 'MERCHANT_CONSOLE_CLAIM_SECONDS';
export const MASTER_KEY_ENV = 'MERCHANT_CONSOLE_MASTER_KEY';
/** Connections in an instance's PostgreSQL pool (serve; docs/deployment.md). */
export const POOL_SIZE_ENV = 'MERCHANT_CONSOLE_POOL_SIZE';
export const MAX_POOL_SIZE = 100;

/**
 * --pool-size, else $MERCHANT_CONSOLE_POOL_SIZE: connections in the PostgreSQL pool (1–100); undefined: the
 * store's default. Refused on SQLite, which has no pool: a team setting that does nothing would mislead.
 */
export function poolSizeOf(flag: string | undefined, env: NodeJS.ProcessEnv, databaseUrl: string | undefined): number | undefined {
  const text = flag ?? (env[POOL_SIZE_ENV] || undefined);
  if (text === undefined) return undefined;
  const from = flag !== undefined ? '--pool-size' : `$${POOL_SIZE_ENV}`;
  if (!/^[1-9][0-9]{0,2}$/.test(text) || Number(text) > MAX_POOL_SIZE) {
    throw new UsageError(`${from}: must be a whole number of connections from 1 to ${MAX_POOL_SIZE}, not ${JSON.stringify(text.slice(0, 32))}`);
  }
  if (databaseUrl === undefined) throw new UsageError(`${from}: only with PostgreSQL (--database-url); the SQLite store has no connection pool`);
  return Number(text);
}

/** --master-key-file, else $MERCHANT_CONSOLE_MASTER_KEY_FILE, else $MERCHANT_CONSOLE_MASTER_KEY (inline); undefined: the data dir's. */
export function masterKeyStoreOf(flag: string | undefined, env: NodeJS.ProcessEnv): MasterKeyStore | undefined {
  const file = flag ?? (env[MASTER_KEY_FILE_ENV] || undefined);
  if (file !== undefined) return explicitFileMasterKeyStore(path.resolve(file));
  const inline = env[MASTER_KEY_ENV];
  if (inline) {
    try {
      return inlineMasterKeyStore(inline, `$${MASTER_KEY_ENV}`);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  return undefined;
}

/**
 * Where browsers reach the service on this data dir (pay pages, console login): the running one (its
 * --public-url, else its address), else where the stored settings say it will listen.
 */
export async function listenerBaseUrl(service: MerchantConsoleService, dataDir: string): Promise<{ url: string; running: boolean }> {
  const running = runningServiceInfo(dataDir);
  if (running?.url) return { url: running.publicUrl ?? running.url, running: true };
  const { host, port } = await service.store.read((tx) => service.services.settings.listener(tx));
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return { url: `http://${urlHost}:${port}`, running: running !== null };
}

/** Opens the service for an admin command and closes it afterwards. */
export async function withService<T>(args: CommandArgs, fn: (service: MerchantConsoleService) => T | Promise<T>): Promise<T> {
  const service = await openService(serviceOptionsOf(args));
  try {
    // pay_url (order show) points where the pay page is served, as in the createOrder answer.
    service.setPublicUrl((await listenerBaseUrl(service, args.dataDir)).url);
    // Callback URLs are checked against the running service's addresses too (callbacks/callback-url-policy.ts).
    const running = runningServiceInfo(args.dataDir);
    service.setOwnListeners([running?.url, running?.publicUrl].filter((u): u is string => !!u));
    return await fn(service);
  } finally {
    await service.close();
  }
}

/** What every command opens: the data dir's SQLite file, or the database the URL names; the master key given. */
export function serviceOptionsOf(args: CommandArgs, env: NodeJS.ProcessEnv = process.env): ServiceOptions {
  const claim = env[CLAIM_SECONDS_ENV];
  if (claim !== undefined && !/^[1-9][0-9]{0,5}$/.test(claim)) throw new UsageError(`$${CLAIM_SECONDS_ENV} must be a whole number of seconds`);
  return {
    ...(claim !== undefined ? { claimSeconds: Number(claim) } : {}),
    dataDir: args.dataDir,
    ...(args.databaseUrl ? { databaseUrl: args.databaseUrl } : {}),
    ...(args.masterKeyStore ? { masterKeyStore: args.masterKeyStore } : {}),
  };
}

export function stringOption(args: CommandArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A string option read by `parse` (which checks and normalises it); what it throws becomes a usage error naming the flag. */
export function parsedOption<T>(args: CommandArgs, name: string, parse: (value: string) => T): T | undefined {
  const value = stringOption(args, name);
  if (value === undefined) return undefined;
  try {
    return parse(value);
  } catch (err) {
    throw new UsageError(`--${name}: ${(err as Error).message}`);
  }
}

export function requiredOption(args: CommandArgs, name: string): string {
  const v = stringOption(args, name);
  if (v === undefined) throw new UsageError(`--${name} is required`);
  return v;
}

/** A positive integer id from a positional or option. */
export function idArgument(value: string | undefined, what: string): number {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value)) throw new UsageError(`${what} must be a positive integer id`);
  return Number(value);
}

export function intOption(args: CommandArgs, name: string): number | undefined {
  const v = stringOption(args, name);
  if (v === undefined) return undefined;
  if (!/^-?[0-9]{1,15}$/.test(v)) throw new UsageError(`--${name} must be an integer`);
  return Number(v);
}

export function describeError(err: unknown): string {
  if (isAppError(err)) return (err as AppError).message;
  const message = err instanceof Error ? err.message : String(err);
  const storage = storageProblemOf(err);
  // "database or disk is full" / "EROFS: read-only file system, open '…'" with the reason first.
  return storage ? `${describeStorageProblem(storage)} (${message})` : message;
}
