/**
 * `db copy`: moves a store between engines (docs/deployment.md, "Moving a
 * desktop store to PostgreSQL"); `db status`: where the store is, its schema
 * version and the background work waiting in it (monitoring).
 */
import path from 'node:path';
import { formatBeijingTime } from '../../../src-shared/beijing-time';
import { openService } from '../../service';
import { createStoreStatusRepository } from '../../repositories/store-status-repository';
import type { AuditVerification } from '../../services/audit-service';
import { copyStore, type CopyProgress, type CopyReport } from '../../store/copy-store';
import { databasePath, ensureDataDir, runningServiceInfo } from '../../store/data-dir';
import { checkDatabaseUrl, openStore, type StoreConfig } from '../../store/open-store';
import type { Store } from '../../store/store';
import fs from 'node:fs';
import { verifyMasterKey } from '../../crypto/key-check';
import { createSecretBox, fileMasterKeyStore, MASTER_KEY_FILE, writeNewKeyFile } from '../../crypto/secret-box';
import { createMerchantRepository } from '../../repositories/merchant-repository';
import { createSettingsRepository } from '../../repositories/settings-repository';
import { defineCommand, requiredOption, UsageError, withService, type CommandArgs, type CommandDef, type CommandIo } from '../command';

/** A store named on the command line: a postgres:// URL, or a data dir (its SQLite file). */
function storeOf(text: string, flag: string): { config: StoreConfig; dataDir: string | undefined } {
  if (/^postgres(ql)?:\/\//i.test(text)) {
    try {
      return { config: { kind: 'postgres', url: checkDatabaseUrl(text) }, dataDir: undefined };
    } catch (err) {
      throw new UsageError(`${flag}: ${(err as Error).message}`);
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw new UsageError(`${flag}: give a data dir or a postgres:// URL`);
  const dataDir = path.resolve(text);
  return { config: { kind: 'sqlite', file: databasePath(dataDir) }, dataDir };
}

/** A progress bar on stderr when it is a terminal, a line per table otherwise. */
function progressPrinter(io: CommandIo, tty: boolean): (p: CopyProgress) => void {
  let lastTable = '';
  let lastShown = -1;
  return (p) => {
    const done = p.copied === p.total;
    if (tty) {
      const width = 30;
      const fraction = p.total === 0 ? 1 : p.copied / p.total;
      const bar = '#'.repeat(Math.round(fraction * width)).padEnd(width, '-');
      const shown = Math.floor(fraction * 100);
      if (shown === lastShown && p.table === lastTable && !done) return;
      lastShown = shown;
      process.stderr.write(`\r${p.table.padEnd(22)} [${bar}] ${String(shown).padStart(3)}% ${p.copied}/${p.total}${done ? '\n' : ''}`);
    } else if (done && p.table !== lastTable) {
      io.err(`${p.table}: ${p.copied} row${p.copied === 1 ? '' : 's'}`);
    }
    if (done) lastTable = p.table;
  };
}

/** A data dir target's own master.key, if it has one, must be the key the copied secrets are sealed with. */
function checkTargetKey(dataDir: string, key: Buffer): void {
  const file = path.join(dataDir, MASTER_KEY_FILE);
  if (fs.existsSync(file) && !fileMasterKeyStore(dataDir).loadOrCreate().equals(key)) {
    throw new Error(`${file} holds another master key than the copied secrets were sealed with; move it away or use another data dir`);
  }
}

/** Writes the key as the data dir's master.key (0600) unless one is there: then it must be the same key. */
function installMasterKey(dataDir: string, key: Buffer): void {
  const file = path.join(dataDir, MASTER_KEY_FILE);
  if (fs.existsSync(file)) {
    checkTargetKey(dataDir, key);
    return;
  }
  if (!writeNewKeyFile(file, key)) installMasterKey(dataDir, key); // written meanwhile: check it as above
}

interface CopyResult extends CopyReport {
  from: string;
  to: string;
  ledger_audit: string[];
  /** The audit trail's hash chain, verified on the target. */
  audit_chain: { entries: number; head_hash: string };
}

async function runCopy(args: CommandArgs, io: CommandIo): Promise<CopyResult> {
  const from = storeOf(requiredOption(args, 'from'), '--from');
  const to = storeOf(requiredOption(args, 'to'), '--to');
  if (from.config.kind === 'sqlite' && !fs.existsSync(from.config.file)) throw new UsageError(`--from: no store in ${from.dataDir} (${from.config.file} does not exist)`);
  if (from.config.kind === 'sqlite' && to.config.kind === 'sqlite') throw new UsageError('--from and --to are both data dirs: copy into a postgres:// database, or from one');
  // A service writing to the SQLite source meanwhile would not be in the copy (the copy reads one snapshot).
  if (from.dataDir && runningServiceInfo(from.dataDir)) {
    throw new UsageError(`a merchant-console service is running on ${from.dataDir}: stop it first, so nothing is written after the copy`);
  }
  // The secrets travel sealed: the target opens them with the source's key.
  const keyStore = args.masterKeyStore ?? (from.dataDir ? fileMasterKeyStore(from.dataDir) : undefined);
  if (!keyStore) throw new UsageError('copying from PostgreSQL needs the master key its secrets are sealed with: --master-key-file FILE (or $MERCHANT_CONSOLE_MASTER_KEY)');
  // Every check of the key comes before anything is written to the target (a desktop key sealed in the OS keychain is refused here).
  const key = keyStore.loadOrCreate();
  if (to.dataDir) checkTargetKey(to.dataDir, key);
  // A data dir this copy creates is removed again when the copy fails: a failed copy leaves nothing behind.
  const newDir = to.dataDir !== undefined && !fs.existsSync(to.dataDir) ? to.dataDir : undefined;
  try {
    return await copyAndVerify(from, to, key, args, io);
  } catch (err) {
    if (newDir) fs.rmSync(newDir, { recursive: true, force: true });
    throw err;
  }
}

async function copyAndVerify(
  from: ReturnType<typeof storeOf>,
  to: ReturnType<typeof storeOf>,
  key: Buffer,
  args: CommandArgs,
  io: CommandIo,
): Promise<CopyResult> {
  if (to.dataDir) ensureDataDir(to.dataDir);
  let source: Store | undefined;
  let target: Store | undefined;
  let report: CopyReport;
  try {
    source = await openStore(from.config);
    // The key must open the source's secrets (its check value): else the copy would be unusable with it.
    await verifyMasterKey(source, createSecretBox(key), { settings: createSettingsRepository(), merchants: createMerchantRepository() });
    target = await openStore(to.config);
    // --json: one document on stdout and nothing else. Row counts and counters are compared before the copy commits.
    report = await copyStore(source, target, args.json ? undefined : progressPrinter(io, process.stderr.isTTY === true));
  } finally {
    await target?.close();
    await source?.close();
  }
  // A data dir target keeps the key next to its store, as the desktop app and serve expect it.
  if (to.dataDir) installMasterKey(to.dataDir, key);
  // The target as the service sees it: the master key opens its secrets, its ledger is consistent, its audit chain intact.
  const service = await openService({
    dataDir: to.dataDir ?? from.dataDir ?? args.dataDir,
    masterKeyStore: { loadOrCreate: () => key },
    ...(to.config.kind === 'postgres' ? { databaseUrl: to.config.url } : {}),
  });
  let audit: string[];
  let chain: AuditVerification;
  try {
    audit = await service.store.read((tx) => service.services.ledger.audit(tx));
    chain = await service.services.audit.verify(service.store);
  } finally {
    await service.close();
  }
  if (audit.length > 0) throw new Error(`the ledger audit of the target found problems: ${audit.join('; ')}`);
  if (!chain.ok) throw new Error(`the audit trail of the target does not verify: ${chain.problem!.message}`);
  return { from: source.location, to: target.location, ...report, ledger_audit: audit, audit_chain: { entries: chain.entries, head_hash: chain.head_hash } };
}

interface StatusResult {
  engine: string;
  location: string;
  schema_version: number;
  instance: string;
  merchants: number;
  orders: number;
  backlog: Awaited<ReturnType<import('../../background/service-work').ServiceWork['backlog']>>;
}

export const dbCommands: CommandDef[] = [
  defineCommand({
    name: 'db copy',
    summary: 'copy a whole store into an empty one: a data dir (SQLite) to postgres://…, or back; verifies row counts, the ledger and the audit trail',
    usage:
      'db copy --from DATA_DIR|postgres://… --to postgres://…|DATA_DIR [--master-key-file FILE]\n' +
      '  the target must be empty; the secrets are copied sealed, so the target is used with the same master key\n' +
      "  (by default the source data dir's master.key: pass it as --master-key-file to every team instance)",
    options: { from: { type: 'string' }, to: { type: 'string' } },
    positionals: 0,
    run: (args, io) => runCopy(args, io),
    human: (r: CopyResult) =>
      [
        `copied ${r.from} → ${r.to}`,
        ...r.tables.filter((t) => t.target > 0).map((t) => `  ${t.table.padEnd(22)} ${t.target}`),
        `  row counts equal, list counters rebuilt and equal, ledger audit passed, audit trail verified (${r.audit_chain.entries} entr${r.audit_chain.entries === 1 ? 'y' : 'ies'})`,
      ].join('\n'),
  }),
  defineCommand({
    name: 'db status',
    summary: 'the store in use (engine, place, schema version) and the background work waiting in it',
    usage: 'db status',
    positionals: 0,
    run: (args) =>
      withService(args, async (s): Promise<StatusResult> => {
        const status = createStoreStatusRepository();
        const counts = await s.store.read(async (tx) => ({
          version: await status.schemaVersion(tx),
          merchants: await status.merchantCount(tx),
          orders: await status.orderCount(tx),
        }));
        return {
          engine: s.store.dialect,
          location: s.store.location,
          schema_version: counts.version,
          instance: s.instanceId,
          merchants: counts.merchants,
          orders: counts.orders,
          backlog: await s.work.backlog(),
        };
      }),
    human: (r: StatusResult) => {
      const when = (t: number | null) => (t === null ? '-' : formatBeijingTime(t));
      return [
        `${r.engine} store ${r.location}, schema version ${r.schema_version}`,
        `  ${r.merchants} merchants, ${r.orders} orders`,
        `  order jobs: ${r.backlog.order_jobs} waiting, ${r.backlog.order_jobs_due} due now (oldest due ${when(r.backlog.oldest_job_due)})`,
        `  callbacks:  ${r.backlog.callbacks_pending} pending, ${r.backlog.callbacks_due} due now (oldest due ${when(r.backlog.oldest_callback_due)})`,
      ].join('\n');
    },
  }),
];
