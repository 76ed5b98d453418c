/**
 * A full disk or a read-only data dir: a clear error (503, code 5031, a
 * message naming the cause; a clear CLI message at start-up), nothing half
 * written, an intact database once the disk has room again.
 *
 * The SQLite-level simulations (max_page_count, query_only) run everywhere;
 * the real ones (a small tmpfs that fills up, a read-only remount) need
 * root with mount rights and are skipped without.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createMerchantClient, type MerchantClient } from '../../../src-shared/client/merchant-client';
import { ErrorCode } from '../../../src-shared/errors';
import { createOrderRepository } from '../../../src-main/repositories/order-repository';
import { openService, type MerchantConsoleService } from '../../../src-main/service';
import { expectLedgerConsistent } from '../../support/money';
import { canMount, mountTmpfs } from '../../support/mounts';
import { serveFailure, startServeChild } from '../../support/serve-child';
import { clientFor, read, rowCount, seedMerchant, testListener, testService, write, type SeededMerchant } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';
import type { Store, WriteOptions, WriteTx } from '../../../src-main/store/store';

const buy = (m: SeededMerchant) => ({ order_type: 1, cny_amount: '100.00', paychannel_id: m.channels.beta, paychannel_paymethod: 'alipay' });
const sell = (m: SeededMerchant) => ({ order_type: 2, cny_amount: '10.00', paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' });

const orders = createOrderRepository();

async function integrity(service: MerchantConsoleService): Promise<string> {
  return (await read(service, (tx) => tx.get<{ integrity_check: string }>('PRAGMA integrity_check')))!.integrity_check;
}

/** Sets a pragma on the store's writer connection (where the service's writes run). */
async function writerPragma(service: MerchantConsoleService, pragma: string): Promise<void> {
  await write(service, (tx) => tx.run(`PRAGMA ${pragma}`));
}

/**
 * From now on every unit of work meets a writer that refuses to write
 * (query_only: SQLITE_READONLY, what SQLite reports once the file cannot be
 * written), until the returned function is called. Set per unit of work, as
 * the store's writer only runs inside units of work (a bare query_only would
 * also refuse the BEGIN of the unit meant to turn it off).
 */
function readOnlyWriter(service: MerchantConsoleService): () => void {
  const store = service.store;
  const original = store.write.bind(store);
  const spy = vi.spyOn(store, 'write').mockImplementation(((fn: (tx: WriteTx) => Promise<unknown>, options?: WriteOptions) =>
    original(async (tx) => {
      await tx.run('PRAGMA query_only = ON');
      try {
        return await fn(tx);
      } finally {
        await tx.run('PRAGMA query_only = OFF');
      }
    }, options)) as Store['write']);
  return () => spy.mockRestore();
}

async function findByNo(service: MerchantConsoleService, orderNo: string) {
  return read(service, (tx) => orders.findByNo(tx, orderNo));
}

/** Creates orders until one is refused; returns the acknowledged order numbers and the refusal. */
async function createUntilRefused(client: MerchantClient, m: SeededMerchant, max = 2000) {
  const acked: string[] = [];
  for (let i = 0; i < max; i++) {
    const res = await client.createOrder(i % 3 === 2 ? sell(m) : buy(m));
    if (res.body.code === 1) acked.push(res.body.data!.order_no);
    else return { acked, refused: res };
  }
  throw new Error(`no refusal after ${max} orders`);
}

function expectStorageRefusal(res: { status: number; body: { code: number; msg: string; data: unknown } }, cause: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.body.code).toBe(ErrorCode.STORAGE_UNAVAILABLE);
  expect(res.body.msg).toMatch(cause);
  expect(res.body.msg).toContain('nothing was stored');
  expect(res.body.data).toBeNull();
}

describe('storage failures while running (simulated in SQLite)', () => {
  it('disk full mid-run: 503 naming the full disk, nothing half written, writes resume once there is room', async () => {
    const service = await testService();
    const m = await seedMerchant(service, 'Full', { balance: 10_000_000 });
    const listener = await testListener(service);
    const client = clientFor(listener, m);
    for (let i = 0; i < 5; i++) expect((await client.createOrder(buy(m))).body.code).toBe(1);
    const pages = (await write(service, (tx) => tx.get<{ page_count: number }>('PRAGMA page_count')))!.page_count;
    await writerPragma(service, `max_page_count = ${pages + 3}`);
    const { acked, refused } = await createUntilRefused(client, m);
    expectStorageRefusal(refused, /disk holding the data dir is full/);

    // Every acknowledged order is there with its reservation; the refused one left nothing.
    expect(await rowCount(service, 'orders')).toBe(5 + acked.length);
    for (const no of acked) expect(await findByNo(service, no)).toBeDefined();
    await expectLedgerConsistent(service);
    expect(await integrity(service)).toBe('ok');
    // Region data (no write) still answers.
    expect((await fetch(`${listener.url}/addons/paychannel/channel/alpha/provinceList`)).status).toBe(200);

    await writerPragma(service, 'max_page_count = 1073741823');
    expect((await client.createOrder(sell(m))).body.code).toBe(1);
    await expectLedgerConsistent(service);
  });

  it('database read-only mid-run: 503 naming the read-only data dir, then writes resume', async () => {
    const service = await testService();
    const m = await seedMerchant(service, 'RO', { balance: 10_000_000 });
    const listener = await testListener(service);
    const client = clientFor(listener, m);
    expect((await client.createOrder(buy(m))).body.code).toBe(1);
    const writable = readOnlyWriter(service);
    const before = await rowCount(service, 'orders');
    expectStorageRefusal((await client.createOrder(sell(m))) as never, /read-only/);
    expect(await rowCount(service, 'orders')).toBe(before);
    writable();
    expect((await client.createOrder(sell(m))).body.code).toBe(1);
    await expectLedgerConsistent(service);
    expect(await integrity(service)).toBe('ok');
  });
});

/** The message of serve --json's error line. */
function errorOf(stderr: string): string {
  const line = stderr.trim().split('\n').find((l) => l.startsWith('{"error"'));
  if (!line) throw new Error(`no JSON error line in: ${stderr}`);
  return (JSON.parse(line) as { error: string }).error;
}

async function prepareDataDir(dataDir: string): Promise<SeededMerchant> {
  const service = await openService({ dataDir });
  try {
    return await seedMerchant(service, 'Disk', { balance: 100_000_000 });
  } finally {
    await service.close();
  }
}

function clientOf(url: string, m: SeededMerchant): MerchantClient {
  return createMerchantClient({ baseUrl: url, apiKey: m.apiKey, apiSecret: m.apiSecret });
}

describe.skipIf(!canMount())('storage failures on a real file system (tmpfs; root only)', () => {
  it('a disk that fills up under serve: 503s, serve stays up, nothing lost or corrupt after it gets room', async () => {
    const disk = mountTmpfs('3m');
    const dataDir = path.join(disk.dir, 'data');
    const m = await prepareDataDir(dataDir);
    const serve = await startServeChild(dataDir);
    const client = clientOf(serve.url, m);
    disk.fill(256 * 1024); // leave a little room: the first orders fit, then the WAL cannot grow
    const { acked, refused } = await createUntilRefused(client, m);
    expectStorageRefusal(refused, /full/);
    expect(acked.length).toBeGreaterThan(0);
    // Still serving, still refusing clearly.
    expect((await fetch(`${serve.url}/addons/paychannel/channel/alpha/provinceList`)).status).toBe(200);
    // Full is not all-or-nothing: once the checkpoint worker has copied the WAL back, SQLite reuses the WAL from its
    // start and a few more orders may fit. Each one is either acknowledged (and must survive) or refused clearly,
    // and the disk fills up again.
    const more = await createUntilRefused(client, m, 200);
    expectStorageRefusal(more.refused, /full/);
    acked.push(...more.acked);
    await serve.stop('SIGKILL'); // as if the machine went down with the disk full

    disk.remount('size=64m');
    const reopened = await openService({ dataDir });
    try {
      expect(await integrity(reopened)).toBe('ok');
      for (const no of acked) expect(await findByNo(reopened, no), no).toBeDefined();
      expect(await rowCount(reopened, 'orders')).toBe(acked.length);
      await expectLedgerConsistent(reopened);
    } finally {
      await reopened.close();
    }
    const again = await startServeChild(dataDir);
    expect((await clientOf(again.url, m).createOrder(buy(m))).body.code).toBe(1);
  }, 60_000);

  it('a full disk at start-up: serve exits with a message naming the full disk', async () => {
    const disk = mountTmpfs('2m');
    disk.fill();
    const failure = await serveFailure(path.join(disk.dir, 'fresh'));
    expect(failure.code).not.toBe(0);
    // serve --json: one JSON line on stderr; a message, not a stack trace.
    expect(errorOf(failure.stderr)).toMatch(/^the disk holding the data dir is full \(/);
    expect(failure.stderr).not.toMatch(/\n\s+at /);
  });

  it('a read-only data dir at start-up: serve exits with a message naming it; the data is untouched', async () => {
    const disk = mountTmpfs('16m');
    const dataDir = path.join(disk.dir, 'data');
    await prepareDataDir(dataDir);
    const before = fs.readFileSync(path.join(dataDir, 'merchant-console.sqlite'));
    disk.remount('ro');
    const existing = await serveFailure(dataDir);
    expect(existing.code).not.toBe(0);
    expect(errorOf(existing.stderr)).toMatch(/^the data dir is read-only \(EROFS/);
    const fresh = await serveFailure(path.join(disk.dir, 'fresh'));
    expect(errorOf(fresh.stderr)).toMatch(/^the data dir is read-only \(EROFS/);
    disk.remount('rw');
    expect(fs.readFileSync(path.join(dataDir, 'merchant-console.sqlite')).equals(before)).toBe(true);
    const reopened = await openService({ dataDir });
    try {
      expect(await integrity(reopened)).toBe('ok');
    } finally {
      await reopened.close();
    }
  });
});

describe.skipIf(process.platform === 'win32')('a data dir this user may not write', () => {
  it('serve exits with a message naming the data dir', async () => {
    const parent = tempDir();
    const dataDir = path.join(parent, 'data');
    await prepareDataDir(dataDir);
    const before = fs.readFileSync(path.join(dataDir, 'merchant-console.sqlite'));
    // Root may write anywhere, so as root serve runs as `nobody` on a dir it can read but not write.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) fs.chmodSync(parent, 0o755);
    fs.chmodSync(dataDir, asRoot ? 0o755 : 0o500);
    try {
      const failure = await serveFailure(dataDir, [], asRoot ? { uid: 65534, gid: 65534 } : undefined);
      expect(failure.code).not.toBe(0);
      expect(errorOf(failure.stderr)).toMatch(/^the data dir is not writable by this user/);
      expect(errorOf(failure.stderr)).toContain(dataDir);
      expect(failure.stderr).not.toMatch(/\n\s+at /);
    } finally {
      fs.chmodSync(dataDir, 0o700);
    }
    expect(fs.readFileSync(path.join(dataDir, 'merchant-console.sqlite')).equals(before)).toBe(true);
  });
});
