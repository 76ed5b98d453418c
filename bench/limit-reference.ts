/**
 * The benchmark's limit reference: the least work a signed createOrder (buy)
 * or orderQueryList page 1 needs, on the same database as the service, with
 * the best technique we know for each engine — so `× limit` in the bench
 * says how far the service is from what this machine can do
 * (docs/benchmarks.md, "References").
 *
 * Per request: node:http (no framework), JSON.parse, the api_key looked up in
 * memory, the timestamp window, the signature checked with the service's own
 * code (src-shared/client/sign: same canonical string, same HMAC), then
 *  - POST /order: a nonce row (SQLite: in its expiry's bucket, the buckets
 *    beside it checked, as the service files them) and the order row (all 26 columns, fees by
 *    src-shared/fees, order number and pay token by the service's own
 *    generators) inserted into the real schema — the same four list indexes,
 *    unique order_no and pay_token, and the order_counts/order_totals triggers
 *    that keep the counters for totals — committed durably;
 *  - POST /list: a nonce row (not flushed on its own, as the service does for
 *    a read), the merchant's total from order_totals and page 1 (20 rows, the
 *    ten listed columns) on the (merchant_id, createtime, id) index.
 *
 * SQLite: one writer connection, group commit (every request that arrived
 * meanwhile shares one transaction), committed with synchronous=NORMAL and
 * then the WAL fdatasync'd on libuv's thread pool before anyone is answered
 * (`--commit wal-sync`, the default), or the same with the next batch's
 * statements run while the WAL sync of the one before is in flight (it
 * commits once that sync is done and its requests answered: `--commit
 * pipelined`, what the service does), or each batch committed with
 * synchronous=FULL on the event loop (`--commit full`); WAL checkpoints on a
 * worker thread as under `serve`. Statement journals in memory
 * (temp_store=MEMORY, as the service's writer); `:temp-files` after the
 * commit mode (`--commit wal-sync:temp-files`) keeps SQLite's default, a
 * temp file once a transaction's journal passes 64 KiB, for comparison.
 * PostgreSQL: a pool (`--pool`, default 10 like the service) and one
 * statement per request — a data-modifying CTE does the nonce and the order
 * (or the nonce, the total and the page) in one round trip and one implicit
 * transaction; PostgreSQL itself groups the WAL flushes of concurrent commits.
 * The list pool runs with synchronous_commit=off (a read's nonce).
 *
 * The schema is the service's: the bench points this at a database the real
 * migrations created (the seeded copy), so nothing here defines tables.
 *
 *   node --import tsx bench/limit-reference.ts --credentials FILE
 *        (--data-dir DIR [--commit wal-sync|pipelined|full[:temp-files]] | --database-url postgres://… [--pool 10])
 * prints {"listening": url} once it listens on 127.0.0.1 (ephemeral port).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { verifySignature } from '../src-shared/client/sign';
import { computeBuyFees, type FeeSettings } from '../src-shared/fees';
import { parseYuan } from '../src-shared/money';
import { NONCE_RETENTION_SECONDS, TIMESTAMP_TOLERANCE_SECONDS } from '../src-shared/constants';
import { checkoutUrl } from '../src-main/channels/sandbox-driver';
import { newOrderNo, newPayToken, toOrderView } from '../src-main/services/order-service';
import { ORDER_SUMMARY_COLUMNS, type OrderSummaryRow } from '../src-main/repositories/order-repository';
import { sqliteInsertNonce, sqliteNonceValues } from '../src-main/repositories/nonce-repository';
import { databasePath } from '../src-main/store/data-dir';
import { startCheckpointer } from '../src-main/store/sqlite/checkpointer';
import { rowMaker } from '../src-main/store/sqlite/row-maker';
import { POSTGRES_NONCE_AND_ORDER, REFERENCE_ORDER_COLUMNS } from './lib/reference-sql';

const { values: opts } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
    credentials: { type: 'string' },
    commit: { type: 'string', default: 'wal-sync' },
    pool: { type: 'string', default: '10' },
  },
});
if (!opts.credentials || (!opts['data-dir'] === !opts['database-url'])) {
  throw new Error('usage: limit-reference.ts --credentials FILE (--data-dir DIR | --database-url postgres://…)');
}
const [commitMode, journal] = opts.commit!.split(':');
if ((commitMode !== 'wal-sync' && commitMode !== 'pipelined' && commitMode !== 'full') || (journal !== undefined && journal !== 'temp-files')) {
  throw new Error('--commit must be wal-sync, pipelined or full, optionally followed by :temp-files');
}

const merchants = new Map<string, { id: number; secret: string }>(
  (JSON.parse(fs.readFileSync(opts.credentials, 'utf8')) as { id: number; api_key: string; api_secret: string }[]).map((m) => [
    m.api_key,
    { id: m.id, secret: m.api_secret },
  ]),
);

const LIST_COLUMNS = ORDER_SUMMARY_COLUMNS.join(', ');
const PAGE_SIZE = 20;
/** A linked channel's effective fees and pay timeout (link overrides over the channel's own), read once at start. */
interface Link {
  fees: FeeSettings;
  payTimeout: number;
}
const LINKS_SQL = `SELECT mc.merchant_id, c.id AS channel_id,
    coalesce(mc.service_rate, c.service_rate) AS service_rate, coalesce(mc.passage_rate, c.passage_rate) AS passage_rate,
    coalesce(mc.deposit_rate, c.deposit_rate) AS deposit_rate, coalesce(mc.base_rate, c.base_rate) AS base_rate,
    c.pay_timeout_seconds AS pay_timeout
  FROM merchant_channels mc JOIN channels c ON c.id = mc.channel_id WHERE c.enabled = 1`;
type LinkRow = { merchant_id: number; channel_id: number; pay_timeout: number } & FeeSettings;
const links = new Map<string, Link>();
function loadLinks(rows: LinkRow[]): void {
  for (const r of rows) {
    links.set(`${r.merchant_id}:${r.channel_id}`, {
      fees: { service_rate: r.service_rate, passage_rate: r.passage_rate, deposit_rate: Number(r.deposit_rate), base_rate: Number(r.base_rate) },
      payTimeout: Number(r.pay_timeout),
    });
  }
}

type Body = Record<string, string | number | boolean | null>;
type Answer = { status: number; json: string };
const refuse = (status: number, code: number, msg: string): Answer => ({ status, json: JSON.stringify({ code, msg, data: null }) });

/** What every signed request checks before touching the database; the merchant, or the refusal. */
function authenticate(body: Body, now: number): { id: number; apiKey: string; nonce: string } | Answer {
  const apiKey = body.api_key;
  const nonce = body.nonce;
  if (typeof apiKey !== 'string') return refuse(401, 2001, 'unauthorised');
  const merchant = merchants.get(apiKey);
  if (!merchant || typeof nonce !== 'string' || typeof body.timestamp !== 'number' || typeof body.signature !== 'string') {
    return refuse(401, 2001, 'unauthorised');
  }
  if (Math.abs(body.timestamp - now) > TIMESTAMP_TOLERANCE_SECONDS) return refuse(401, 2002, 'stale timestamp');
  if (!verifySignature(body, body.signature, merchant.secret, 'hmac-sha256')) return refuse(401, 2003, 'bad signature');
  return { id: merchant.id, apiKey, nonce };
}

interface NewOrder {
  values: unknown[];
  answer: string;
}

/** The order row (REFERENCE_ORDER_COLUMNS order) and the createOrder answer, or a refusal. */
function draftBuy(body: Body, merchantId: number, now: number, publicUrl: string): NewOrder | Answer {
  const amount = parseYuan(String(body.cny_amount));
  if (!amount.ok) return refuse(400, 1001, `cny_amount: ${amount.rule}`);
  const link = links.get(`${merchantId}:${Number(body.paychannel_id)}`);
  if (!link) return refuse(400, 1001, 'paychannel_id: not linked');
  const f = computeBuyFees(amount.fen, link.fees);
  const orderNo = newOrderNo(1, now);
  const payToken = newPayToken();
  const payUrl = checkoutUrl(publicUrl, payToken);
  const payMethod = String(body.paychannel_paymethod);
  const values = [
    orderNo, merchantId, Number(body.paychannel_id), 1, 'pending', payMethod, amount.fen, link.fees.service_rate, link.fees.passage_rate,
    link.fees.deposit_rate, link.fees.base_rate, f.service_amount, 0, f.deposit_amount, 0, f.merchant_actual_amount,
    null, null, null, null, null, payToken, payUrl, now + link.payTimeout, now, now,
  ];
  const answer = JSON.stringify({
    code: 1,
    msg: 'Order created',
    data: {
      order_no: orderNo, status: 'pending', order_type: 1, cny_amount: String(body.cny_amount), payment_method: payMethod,
      deposit_amount: f.deposit_amount, service_amount: f.service_amount, merchant_actual_amount: f.merchant_actual_amount, pay_url: payUrl, createtime: now,
    },
    time: String(now),
  });
  return { values, answer };
}

function listAnswer(rows: OrderSummaryRow[], total: number): string {
  return JSON.stringify({ code: 1, msg: 'success', data: { list: rows.map(toOrderView), total, page: 1, limit: PAGE_SIZE } });
}

interface Engine {
  createOrder(body: Body, now: number): Promise<Answer>;
  listFirstPage(body: Body, now: number): Promise<Answer>;
  close(): Promise<void>;
}

let publicUrl = 'http://127.0.0.1:0';

// ---------------------------------------------------------------- SQLite

function sqliteEngine(dataDir: string, commit: 'wal-sync' | 'pipelined' | 'full', tempFiles: boolean): Engine {
  const file = databasePath(dataDir);
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${commit === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('cache_size = -32768');
  db.pragma('busy_timeout = 5000');
  if (!tempFiles) db.pragma('temp_store = MEMORY');
  loadLinks(db.prepare(LINKS_SQL).all() as LinkRow[]);
  const checkpointer = startCheckpointer(db);
  // The service's statement: the nonce in its expiry's bucket, the buckets beside it checked (migration 0012).
  const insertNonce = db.prepare(sqliteInsertNonce());
  const insertOrder = db.prepare(`INSERT INTO orders (${REFERENCE_ORDER_COLUMNS.join(', ')}) VALUES (${REFERENCE_ORDER_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`);
  const total = db.prepare('SELECT coalesce(sum(n), 0) AS n FROM order_totals WHERE merchant_id = ?').pluck();
  const page = db.prepare(`SELECT ${LIST_COLUMNS} FROM orders WHERE merchant_id = ? ORDER BY createtime DESC, id DESC LIMIT ${PAGE_SIZE}`);
  // Rows as raw arrays made into objects in JavaScript, as the service's store does (src-main/store/sqlite/row-maker.ts):
  // cheaper than better-sqlite3's own row objects.
  page.raw(true);
  const pageRow = rowMaker(page.columns().map((c) => c.name))!;
  let walFd: number | undefined;
  const syncWal = () =>
    new Promise<void>((resolve, reject) => {
      walFd ??= fs.openSync(`${file}-wal`, 'r+');
      fs.fdatasync(walFd, (err) => (err ? reject(err) : resolve()));
    });

  // Group commit: jobs run inside one transaction; each is answered after the commit (and the WAL sync, when durable).
  interface Job {
    run(): Answer;
    durable: boolean;
    done(answer: Answer): void;
  }
  let pending: Job[] = [];
  let busy = false;
  // pipelined: set while flush waits for the batch in flight or for new requests, whichever comes first.
  let arrived: (() => void) | null = null;
  async function flush(): Promise<void> {
    busy = true;
    // pipelined: the batch committed last, waiting for its WAL sync and then answering.
    let syncing: Promise<void> = Promise.resolve();
    let synced = true;
    try {
      while (pending.length > 0 || !synced) {
        if (pending.length === 0) {
          // The batch in flight syncs: start the next one as soon as requests arrive (as the service does).
          await Promise.race([syncing, new Promise<void>((resolve) => (arrived = resolve))]);
          arrived = null;
          if (pending.length > 0) await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        const batch = pending;
        pending = [];
        const answers: Answer[] = [];
        db.exec('BEGIN IMMEDIATE');
        for (const job of batch) answers.push(job.run());
        // Committed only once the batch before is durable and answered.
        if (!synced) await syncing;
        db.exec('COMMIT');
        const durable = commit !== 'full' && batch.some((j) => j.durable);
        const answer = () => batch.forEach((job, i) => job.done(answers[i]!));
        if (commit === 'pipelined' && durable) {
          synced = false;
          syncing = syncWal().then(() => {
            answer();
            synced = true;
          });
        } else {
          if (durable) await syncWal();
          answer();
        }
      }
    } finally {
      busy = false;
    }
  }
  function enqueue(run: () => Answer, durable: boolean): Promise<Answer> {
    return new Promise((done) => {
      pending.push({ run, durable, done });
      if (arrived) {
        arrived();
        arrived = null;
      } else if (!busy && pending.length === 1) setImmediate(() => void flush());
    });
  }

  return {
    async createOrder(body, now) {
      const who = authenticate(body, now);
      if ('status' in who) return who;
      const order = draftBuy(body, who.id, now, publicUrl);
      if ('status' in order) return order;
      return enqueue(() => {
        if (insertNonce.run(sqliteNonceValues(who.apiKey, who.nonce, now + NONCE_RETENTION_SECONDS)).changes !== 1) return refuse(401, 2005, 'nonce reused');
        // An order number or pay token taken (rare): another draft, as the service does. A throw here
        // would end the process (it once did: a round of 75,000 failures).
        let draft = order;
        while (insertOrder.run(draft.values).changes !== 1) draft = draftBuy(body, who.id, now, publicUrl) as NewOrder;
        return { status: 200, json: draft.answer };
      }, true);
    },
    async listFirstPage(body, now) {
      const who = authenticate(body, now);
      if ('status' in who) return who;
      return enqueue(() => {
        if (insertNonce.run(sqliteNonceValues(who.apiKey, who.nonce, now + NONCE_RETENTION_SECONDS)).changes !== 1) return refuse(401, 2005, 'nonce reused');
        return { status: 200, json: listAnswer((page.all(who.id) as unknown[][]).map(pageRow) as unknown as OrderSummaryRow[], total.get(who.id) as number) };
      }, false);
    },
    async close() {
      while (busy || pending.length > 0) await new Promise((r) => setTimeout(r, 5));
      await checkpointer.stop();
      if (walFd !== undefined) fs.closeSync(walFd);
      db.close();
    },
  };
}

// ---------------------------------------------------------------- PostgreSQL

async function postgresEngine(url: string, poolSize: number): Promise<Engine> {
  // BIGINT and NUMERIC as JS numbers, as the service's engine reads them.
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === 20 || oid === 1700) return Number;
      return pg.types.getTypeParser(oid, format);
    },
  } as unknown as pg.CustomTypesConfig;
  const durable = new pg.Pool({ connectionString: url, max: poolSize, types });
  // A read's nonce does not wait for its WAL flush (the service's SET LOCAL synchronous_commit TO off).
  const relaxed = new pg.Pool({ connectionString: url, max: poolSize, types, options: '-c synchronous_commit=off' });
  loadLinks((await durable.query<LinkRow>(LINKS_SQL)).rows);
  const list = {
    name: 'ref_list',
    text: `WITH n AS (INSERT INTO nonces (api_key, nonce, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1),
        t AS (SELECT coalesce(sum(n), 0) AS total FROM order_totals WHERE merchant_id = $4)
      SELECT (SELECT count(*) FROM n) AS fresh, t.total, o.*
      FROM t LEFT JOIN LATERAL (SELECT ${LIST_COLUMNS} FROM orders WHERE merchant_id = $4 ORDER BY createtime DESC, id DESC LIMIT ${PAGE_SIZE}) o ON true`,
  };
  return {
    async createOrder(body, now) {
      const who = authenticate(body, now);
      if ('status' in who) return who;
      for (let attempt = 0; ; attempt++) {
        const order = draftBuy(body, who.id, now, publicUrl);
        if ('status' in order) return order;
        try {
          const r = await durable.query({ ...POSTGRES_NONCE_AND_ORDER, values: [who.apiKey, who.nonce, now + NONCE_RETENTION_SECONDS, ...order.values] });
          return r.rowCount === 1 ? { status: 200, json: order.answer } : refuse(401, 2005, 'nonce reused');
        } catch (err) {
          // An order number taken (rare): the statement rolled back whole, nonce included; try another.
          if ((err as { code?: string }).code !== '23505' || attempt >= 4) throw err;
        }
      }
    },
    async listFirstPage(body, now) {
      const who = authenticate(body, now);
      if ('status' in who) return who;
      const r = await relaxed.query({ ...list, values: [who.apiKey, who.nonce, now + NONCE_RETENTION_SECONDS, who.id] });
      const first = r.rows[0] as { fresh: number; total: number; id: number | null };
      if (first.fresh !== 1) return refuse(401, 2005, 'nonce reused');
      const rows = first.id === null ? [] : (r.rows as OrderSummaryRow[]);
      return { status: 200, json: listAnswer(rows, first.total) };
    },
    async close() {
      await durable.end();
      await relaxed.end();
    },
  };
}

// ---------------------------------------------------------------- HTTP

const engine: Engine = opts['data-dir']
  ? sqliteEngine(opts['data-dir'], commitMode, journal === 'temp-files')
  : await postgresEngine(opts['database-url']!, Number(opts.pool));

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const send = (a: Answer) => {
      res.writeHead(a.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(a.json) });
      res.end(a.json);
    };
    let body: Body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
    } catch {
      return send(refuse(400, 1000, 'body: not JSON'));
    }
    const now = Math.floor(Date.now() / 1000);
    const handler = req.method !== 'POST' ? undefined : req.url === '/order' ? engine.createOrder : req.url === '/list' ? engine.listFirstPage : undefined;
    if (!handler) return send(refuse(404, 1004, 'not found'));
    handler(body, now).then(send, (err: unknown) => send(refuse(503, 5031, String((err as Error)?.message ?? err))));
  });
});

server.listen(0, '127.0.0.1', () => {
  publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  console.log(JSON.stringify({ listening: publicUrl }));
});
const stop = () => {
  server.close();
  server.closeAllConnections();
  void engine.close().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
