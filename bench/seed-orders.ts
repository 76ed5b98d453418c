/**
 * Seeds a benchmark database: N merchants (each with one sandbox channel per
 * category and settlement accounts, created through the real services, so
 * secrets are encrypted as the service would store them) and M orders spread
 * over the last D days, bulk-inserted straight into the schema in large
 * transactions with prepared statements. Every row is what createOrder and
 * the order lifecycle would have written: real order numbers, fees from
 * src-shared/fees.ts, pay tokens on buys, payee snapshots on sells; each
 * order lives through a timeline (paid or expired, settled after the
 * channel's delay; sells frozen, accepted, paid out or failed) up to `now`,
 * with its status transitions, its ledger transactions (posting rules of
 * src-main/ledger/posting-rules.ts), the jobs still due, and the merchants'
 * cached balances equal to their ledger sums. Each merchant starts with an
 * operator adjustment (the real ledger service) that covers every sell.
 * The order_counts triggers run as usual. SQLite only: the merchants go
 * through the service on the data dir's store, the orders through a raw
 * better-sqlite3 connection on its file (the store API has no bulk mode).
 *
 * Deterministic: a seeded PRNG drives everything except the merchants'
 * random API keys and secrets (the manifest records them).
 *
 *   node --import tsx bench/seed-orders.ts --data-dir DIR [--orders 1000000] [--merchants 20] [--days 90] [--seed 1]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { computeBuyFees, computeSellFees, type FeeSettings } from '../src-shared/fees';
import { ORDER_TYPE, type OrderStatus, type PayMethod } from '../src-shared/constants';
import type { TransitionSource } from '../src-shared/order-state-machine';
import { isMerchantAccount, orderPostings, type HoldKind, type LedgerKind } from '../src-main/ledger/posting-rules';

/** What an order's own postings can be (no operator adjustments, no withdrawal holds). */
type OrderLedgerKind = Exclude<LedgerKind, 'adjustment' | HoldKind>;
import { checkoutUrl } from '../src-main/channels/sandbox-driver';
import { openService } from '../src-main/service';
import type { Clock } from '../src-main/services/context';
import { databasePath } from '../src-main/store/data-dir';

export interface SeedOptions {
  dataDir: string;
  orders: number;
  merchants: number;
  days: number;
  seed: number;
  /** End of the seeded period, Unix seconds (default: now). */
  now?: number;
  log?: (line: string) => void;
}

export interface SeededMerchantCredentials {
  id: number;
  api_key: string;
  api_secret: string;
  channels: { alpha: number; beta: number; gamma: number };
}

export interface SeedManifest {
  orders: number;
  merchants: number;
  days: number;
  seed: number;
  now: number;
  schema_version: number;
  seconds: number;
  merchant_credentials: SeededMerchantCredentials[];
  /** A few order numbers per merchant, for detail queries. */
  sample_orders: Record<string, string[]>;
}

export const MANIFEST_FILE = 'bench-manifest.json';

/** Mulberry32: small, fast, good enough to spread test data; not for secrets. */
export function createPrng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BEIJING_OFFSET_S = 8 * 3600;
const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const PAY_METHODS_ALL: PayMethod[] = ['wxpay', 'alipay', 'bank'];

/** Same shape as newOrderNo(): B|S, Beijing time to the second, 10 digits. */
function orderNoAt(orderType: 1 | 2, createtime: number, rnd: () => number): string {
  const t = new Date((createtime + BEIJING_OFFSET_S) * 1000).toISOString();
  const stamp = t.slice(0, 19).replace(/[-T:]/g, '');
  const digits = String(Math.floor(rnd() * 1e10)).padStart(10, '0');
  return (orderType === ORDER_TYPE.BUY ? 'B' : 'S') + stamp + digits;
}

function payTokenFrom(rnd: () => number): string {
  let s = '';
  for (let i = 0; i < 32; i++) s += TOKEN_ALPHABET[Math.floor(rnd() * 64)];
  return s;
}

/** Opening balance of every seeded merchant: 100,000,000.00 CNY, more than all its sells. */
export const OPENING_BALANCE_FEN = 10_000_000_000;

interface MerchantSetup {
  id: number;
  channelIds: number[];
  fees: FeeSettings[];
  settleDelay: number[];
  payees: Map<PayMethod, { id: number; snapshot: string; customer: string }>;
}

/** The merchants, their channels, links, settlement accounts and opening balances, through the real services. */
async function seedMerchants(options: SeedOptions, clock: Clock) {
  const service = await openService({ dataDir: options.dataDir, clock });
  try {
    const { merchants, channels, paymentMethods, ledger } = service.services;
    const seeded = await service.store.write(async (tx) => {
      if ((await tx.get<{ n: number }>('SELECT count(*) AS n FROM merchants'))!.n > 0) {
        throw new Error(`${options.dataDir} already holds data; seed an empty data dir`);
      }
      const credentials: SeededMerchantCredentials[] = [];
      const merchantSetup: MerchantSetup[] = [];
      const balances = new Map<number, { available: number; frozen: number; deposit: number }>();
      for (let m = 1; m <= options.merchants; m++) {
        const merchant = await merchants.create(tx, { name: `Bench Merchant ${m}`, sign_type: 'hmac-sha256', callback_url: null });
        const ids = { alpha: 0, beta: 0, gamma: 0 };
        for (const category of ['alpha', 'beta', 'gamma'] as const) {
          const c = await channels.create(tx, {
            category,
            name: `Bench ${m} ${category}`,
            pay_methods: PAY_METHODS_ALL,
            service_rate: ['0.006', '0.0055', '0.008'][m % 3]!,
            passage_rate: category === 'gamma' ? '-0.001' : '0.002',
            deposit_rate: 50,
            base_rate: 30,
            min_amount: 100,
            max_amount: 5_000_000,
            // gamma settles T+1, so its paid buys stay paid for a day.
            settle_delay: category === 'gamma' ? 86_400 : 0,
            payout_delay: 5,
          });
          await channels.link(tx, { merchant_id: merchant.id, channel_id: c.id });
          ids[category] = c.id;
        }
        const payees = new Map<PayMethod, { id: number; snapshot: string; customer: string }>();
        const accounts: { kind: PayMethod; bank?: string; sub_bank?: string; card_number: string }[] = [
          { kind: 'bank', bank: '中国工商银行', sub_bank: '北京朝阳支行', card_number: `62220202${String(100000000 + m).slice(1)}45` },
          { kind: 'alipay', card_number: `bench-${m}@example.com` },
          { kind: 'wxpay', card_number: `wxid_bench_${m}` },
        ];
        for (const a of accounts) {
          const pm = await paymentMethods.add(tx, { merchant_id: merchant.id, real_name: `商户${m}`, ...a });
          const snapshot = { bank: pm.bank, sub_bank: pm.sub_bank, card_number: pm.card_number, real_name: pm.real_name };
          const fullInfo = [snapshot.real_name, snapshot.bank, snapshot.sub_bank, snapshot.card_number].filter((s) => s.length > 0).join(' ');
          payees.set(a.kind, { id: pm.id, snapshot: JSON.stringify(snapshot), customer: JSON.stringify({ ...snapshot, full_info: fullInfo }) });
        }
        const channelIds = [ids.alpha, ids.beta, ids.gamma];
        // The fees an order on each link gets (link overrides over the channel's own).
        const fees: FeeSettings[] = [];
        for (const cid of channelIds) fees.push((await channels.resolveForOrder(tx, merchant.id, cid, 'bank')).fees);
        merchantSetup.push({ id: merchant.id, channelIds, fees, settleDelay: [0, 0, 86_400], payees });
        await ledger.adjust(tx, merchant.id, OPENING_BALANCE_FEN, 'benchmark opening balance');
        balances.set(merchant.id, { ...(await ledger.balances(tx, merchant.id)) });
        credentials.push({ id: merchant.id, api_key: merchant.api_key, api_secret: merchant.api_secret, channels: ids });
      }
      return { credentials, merchantSetup, balances };
    });
    // Where a service that never listened sends payers: what createOrder would store as pay_url.
    return { ...seeded, publicUrl: service.publicUrl() };
  } finally {
    await service.close();
  }
}

export async function seedBenchDatabase(options: SeedOptions): Promise<SeedManifest> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const from = now - options.days * 86_400;
  const rnd = createPrng(options.seed);
  // Merchants and channels are "created" at the start of the period.
  const clock: Clock = { now: () => from };
  // Balances move in JS and are written once at the end (the cache must equal the ledger).
  const { credentials, merchantSetup, balances, publicUrl } = await seedMerchants(options, clock);
  log(`seeded ${options.merchants} merchants with 3 channels each`);

  const db = new BetterSqlite3(databasePath(options.dataDir));
  let schemaVersion: number;
  let sampleOrders: Record<string, string[]>;
  try {
    // Order times: sorted, so the (merchant, time) indexes grow at their ends.
    const times = new Float64Array(options.orders);
    for (let i = 0; i < options.orders; i++) times[i] = from + Math.floor(rnd() * (now - from));
    times.sort();

    // A fixed menu of amounts per channel, fees computed once each by the real formulas.
    const AMOUNTS = 512;
    const amountMenu: number[] = [];
    for (let i = 0; i < AMOUNTS; i++) {
      // Log-uniform from 10 to 20,000 yuan, whole fen.
      amountMenu.push(Math.round(1000 * Math.pow(2000, rnd())));
    }
    const feeCache = new Map<string, ReturnType<typeof computeSellFees>>();
    const feesFor = (orderType: 1 | 2, merchantIndex: number, channelIndex: number, amountIndex: number) => {
      const key = `${orderType}:${merchantIndex}:${channelIndex}:${amountIndex}`;
      let f = feeCache.get(key);
      if (!f) {
        const settings = merchantSetup[merchantIndex]!.fees[channelIndex]!;
        const amount = amountMenu[amountIndex]!;
        f = orderType === ORDER_TYPE.BUY ? { ...computeBuyFees(amount, settings), passage_amount: 0, channel_amount: 0 } : computeSellFees(amount, settings);
        feeCache.set(key, f);
      }
      return f;
    };

    // Bulk mode: no fsync (a crash while seeding means seeding again), a
    // large page cache, and foreign keys checked once at the end instead of
    // per row (the parents were created above).
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    db.pragma('foreign_keys = OFF');
    const insert = db.prepare(
      `INSERT INTO orders (order_no, merchant_id, channel_id, order_type, status, pay_method, cny_amount, service_rate,
         passage_rate, deposit_rate, base_rate, service_amount, passage_amount, deposit_amount, channel_amount,
         merchant_actual_amount, customer_name, payment_method_id, payment_method_snapshot, customer_payment_method,
         alpha_data_enc, pay_token, pay_url, expires_at, createtime, updatetime)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)`,
    );
    const insertTransition = db.prepare(
      'INSERT INTO order_transitions (order_id, from_status, to_status, source, reason, createtime) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const insertLedgerTx = db.prepare('INSERT INTO ledger_transactions (kind, merchant_id, order_id, reason, createtime) VALUES (?, ?, ?, ?, ?)');
    const insertEntry = db.prepare('INSERT INTO ledger_entries (transaction_id, account, merchant_id, amount) VALUES (?, ?, ?, ?)');
    const insertJob = db.prepare('INSERT INTO order_jobs (order_id, kind, due_at, createtime) VALUES (?, ?, ?, ?)');
    const PAY_TIMEOUT = 1800;
    const PAYOUT_DELAY = 5;

    const samples: Record<string, string[]> = {};
    const BATCH = 50_000;
    const secondaryIndexes = dropSecondaryIndexes(db, ['orders', 'order_transitions', 'ledger_transactions', 'ledger_entries', 'order_jobs']);
    for (let startIndex = 0; startIndex < options.orders; startIndex += BATCH) {
      db.transaction(() => {
        const endIndex = Math.min(options.orders, startIndex + BATCH);
        for (let i = startIndex; i < endIndex; i++) {
          const createtime = times[i]!;
          const mi = Math.floor(rnd() * merchantSetup.length);
          const m = merchantSetup[mi]!;
          const orderType: 1 | 2 = rnd() < 0.7 ? 1 : 2;
          // Buys on any category; sells on beta/gamma (alpha sells carry per-order encrypted payee data).
          const ci = orderType === 1 ? Math.floor(rnd() * 3) : 1 + Math.floor(rnd() * 2);
          const payMethod = PAY_METHODS_ALL[Math.floor(rnd() * 3)]!;
          const ai = Math.floor(rnd() * AMOUNTS);
          const f = feesFor(orderType, mi, ci, ai);
          const fees = m.fees[ci]!;
          const amounts = { cny_amount: amountMenu[ai]!, ...f };

          // The order's life up to `now`: [time, from, to, source, reason, ledger effect].
          const steps: [number, OrderStatus, OrderStatus, TransitionSource, string, OrderLedgerKind | null][] = [];
          const jobs: [string, number][] = [];
          const r = rnd();
          const t1 = createtime + 5 + Math.floor(rnd() * 600);
          if (orderType === 1) {
            const settleAt = t1 + m.settleDelay[ci]!;
            if (r < 0.27) {
              if (createtime + PAY_TIMEOUT <= now) steps.push([createtime + PAY_TIMEOUT, 'pending', 'cancelled', 'expiry', `not paid within ${PAY_TIMEOUT} s`, null]);
            } else if (t1 <= now) {
              steps.push([t1, 'pending', 'paid', 'channel', 'channel notified: paid', 'buy_paid']);
              if (settleAt <= now) steps.push([settleAt, 'paid', 'completed', 'channel', 'settled', null]);
              else jobs.push(['settle', settleAt]);
            }
          } else {
            const accepted = t1 <= now;
            if (!accepted) jobs.push(['start_payout', createtime]);
            else if (r < 0.04) steps.push([t1, 'pending', 'cancelled', 'channel', 'channel refused the payout', 'sell_release']);
            else {
              steps.push([t1, 'pending', 'confirmed', 'channel', 'channel accepted the payout', null]);
              const done = t1 + PAYOUT_DELAY;
              if (done > now) jobs.push(['complete_payout', done]);
              else if (r < 0.08) steps.push([done, 'confirmed', 'cancelled', 'channel', 'payout failed', 'sell_release']);
              else steps.push([done, 'confirmed', 'completed', 'channel', 'paid out', 'sell_paid_out']);
            }
          }
          const status = steps.length > 0 ? steps[steps.length - 1]![2] : 'pending';
          const updatetime = steps.length > 0 ? steps[steps.length - 1]![0] : createtime;
          const payee = orderType === 2 ? m.payees.get(payMethod)! : undefined;
          const payToken = orderType === 1 ? payTokenFrom(rnd) : null;
          const params = [
            '',
            m.id,
            m.channelIds[ci]!,
            orderType,
            status,
            payMethod,
            amounts.cny_amount,
            fees.service_rate,
            fees.passage_rate,
            fees.deposit_rate,
            fees.base_rate,
            f.service_amount,
            f.passage_amount,
            f.deposit_amount,
            f.channel_amount,
            f.merchant_actual_amount,
            orderType === 1 && rnd() < 0.3 ? '张三' : null,
            payee?.id ?? null,
            payee?.snapshot ?? null,
            payee?.customer ?? null,
            payToken,
            payToken ? checkoutUrl(publicUrl, payToken) : null,
            orderType === 1 ? createtime + PAY_TIMEOUT : null,
            createtime,
            updatetime,
          ];
          let orderId = 0;
          for (let attempt = 0; ; attempt++) {
            params[0] = orderNoAt(orderType, createtime, rnd);
            try {
              orderId = Number(insert.run(params).lastInsertRowid);
              break;
            } catch (err) {
              if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE' || attempt > 4) throw err;
            }
          }
          const orderNo = params[0] as string;
          const balance = balances.get(m.id)!;
          const post = (kind: OrderLedgerKind, reason: string, at: number) => {
            const postings = orderPostings(kind, amounts);
            const txId = Number(insertLedgerTx.run(kind, m.id, orderId, reason, at).lastInsertRowid);
            for (const p of postings) {
              insertEntry.run(txId, p.account, isMerchantAccount(p.account) ? m.id : null, p.amount);
              if (p.account === 'merchant_available') balance.available += p.amount;
              else if (p.account === 'merchant_frozen') balance.frozen += p.amount;
              else if (p.account === 'merchant_deposit') balance.deposit += p.amount;
            }
            if (balance.available < 0 || balance.frozen < 0) throw new Error(`seeding would overdraw merchant ${m.id}`);
          };
          if (orderType === 2) post('sell_freeze', `${orderNo}: reserved for payout`, createtime);
          for (const [at, from, to, source, reason, effect] of steps) {
            insertTransition.run(orderId, from, to, source, reason, at);
            if (effect) post(effect, `${orderNo}: ${from} → ${to} (${reason})`, at);
          }
          for (const [kind, due] of jobs) insertJob.run(orderId, kind, due, createtime);
          const list = (samples[String(m.id)] ??= []);
          if (list.length < 64 && rnd() < 0.01) list.push(orderNo);
        }
      })();
      log(`  ${Math.min(options.orders, startIndex + BATCH)} orders`);
    }
    log('  rebuilding indexes');
    db.exec(secondaryIndexes.join(';\n'));
    const setBalance = db.prepare('UPDATE merchant_balances SET available = ?, frozen = ?, deposit = ?, updatetime = ? WHERE merchant_id = ?');
    db.transaction(() => {
      for (const [merchantId, b] of balances) setBalance.run(b.available, b.frozen, b.deposit, now, merchantId);
    })();
    db.pragma('foreign_keys = ON');
    const orphans = db.prepare('PRAGMA foreign_key_check(orders)').all();
    if (orphans.length > 0) throw new Error(`seeded orders break ${orphans.length} foreign keys`);
    db.pragma('synchronous = FULL');
    // No ANALYZE: the service never runs it, and with SQLite's STAT4 statistics
    // (compiled into better-sqlite3) every statement whose plan could depend on
    // a bound value is re-prepared on each new binding (docs/benchmarks.md).
    db.pragma('wal_checkpoint(TRUNCATE)');
    schemaVersion = db.pragma('user_version', { simple: true }) as number;
    sampleOrders = samples;
  } finally {
    db.close();
  }
  // The ledger as the service's own audit sees it.
  const check = await openService({ dataDir: options.dataDir, clock });
  try {
    const problems = await check.store.read((tx) => check.services.ledger.audit(tx));
    if (problems.length > 0) throw new Error(`seeded ledger inconsistent: ${problems.slice(0, 5).join('; ')}`);
  } finally {
    await check.close();
  }
  const manifest: SeedManifest = {
    orders: options.orders,
    merchants: options.merchants,
    days: options.days,
    seed: options.seed,
    now,
    schema_version: schemaVersion,
    seconds: (Date.now() - started) / 1000,
    merchant_credentials: credentials,
    sample_orders: sampleOrders,
  };
  fs.writeFileSync(path.join(options.dataDir, MANIFEST_FILE), JSON.stringify(manifest, null, 1), { mode: 0o600 });
  return manifest;
}

/**
 * Drops the non-unique secondary indexes of these tables and returns the SQL
 * that recreates them: a bulk load into bare tables followed by one sorted
 * index build is several times faster than updating every index per row.
 * Unique indexes stay (they enforce constraints).
 */
function dropSecondaryIndexes(db: import('better-sqlite3').Database, tables: string[]): string[] {
  const rows = db
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${tables.map(() => '?').join(', ')})`)
    .all(...tables) as { name: string; sql: string }[];
  const plain = rows.filter((r) => !/^CREATE\s+UNIQUE/i.test(r.sql));
  for (const r of plain) db.exec(`DROP INDEX "${r.name}"`);
  return plain.map((r) => r.sql);
}

export function readManifest(dataDir: string): SeedManifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, MANIFEST_FILE), 'utf8')) as SeedManifest;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      orders: { type: 'string', default: '1000000' },
      merchants: { type: 'string', default: '20' },
      days: { type: 'string', default: '90' },
      seed: { type: 'string', default: '1' },
    },
  });
  if (!values['data-dir']) throw new Error('--data-dir is required');
  const manifest = await seedBenchDatabase({
    dataDir: path.resolve(values['data-dir']),
    orders: Number(values.orders),
    merchants: Number(values.merchants),
    days: Number(values.days),
    seed: Number(values.seed),
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify({ orders: manifest.orders, merchants: manifest.merchants, days: manifest.days, seconds: manifest.seconds }));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
