/**
 * The benchmark's reference: a bare Fastify route doing what createOrder
 * must do at minimum, in the simplest per-request way: check the HMAC
 * signature (same canonical string and algorithm as the merchant API),
 * insert the nonce and one order row, each request in its own transaction
 * committed durably (WAL, synchronous=FULL). No validation framework, no
 * fees, no group commit.
 *
 *   node --import tsx bench/reference-server.ts --data-dir DIR --credentials FILE
 * prints {"listening": url} once it listens on 127.0.0.1 (ephemeral port).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import Fastify from 'fastify';
import { parseYuan } from '../src-shared/money';
import { buildSigningString } from '../src-shared/signing';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, credentials: { type: 'string' } } });
const dataDir = values['data-dir']!;
const secrets = new Map<string, { id: number; secret: string }>(
  (JSON.parse(fs.readFileSync(values.credentials!, 'utf8')) as { id: number; api_key: string; api_secret: string }[]).map((m) => [
    m.api_key,
    { id: m.id, secret: m.api_secret },
  ]),
);

fs.mkdirSync(dataDir, { recursive: true });
const db = new BetterSqlite3(path.join(dataDir, 'reference.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`
  CREATE TABLE IF NOT EXISTS nonces (api_key TEXT NOT NULL, nonce TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (api_key, nonce)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS orders (
    id INTEGER PRIMARY KEY, order_no TEXT NOT NULL UNIQUE, merchant_id INTEGER NOT NULL, order_type INTEGER NOT NULL,
    status TEXT NOT NULL, pay_method TEXT NOT NULL, cny_amount INTEGER NOT NULL, createtime INTEGER NOT NULL
  );
`);
const insertNonce = db.prepare('INSERT OR IGNORE INTO nonces (api_key, nonce, expires_at) VALUES (?, ?, ?)');
const insertOrder = db.prepare(
  "INSERT INTO orders (order_no, merchant_id, order_type, status, pay_method, cny_amount, createtime) VALUES (?, ?, 1, 'pending', ?, ?, ?)",
);

const app = Fastify({ logger: false });
app.post('/order', (request, reply) => {
  const body = request.body as Record<string, string | number>;
  const merchant = secrets.get(String(body.api_key));
  const now = Math.floor(Date.now() / 1000);
  if (!merchant || typeof body.timestamp !== 'number' || Math.abs(body.timestamp - now) > 300) {
    return reply.status(401).send({ code: 2001, msg: 'unauthorised', data: null });
  }
  const expected = createHmac('sha256', merchant.secret).update(buildSigningString(body, merchant.secret), 'utf8').digest('hex').toUpperCase();
  const given = Buffer.from(String(body.signature));
  if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected))) {
    return reply.status(401).send({ code: 2003, msg: 'bad signature', data: null });
  }
  const amount = parseYuan(String(body.cny_amount));
  if (!amount.ok) return reply.status(400).send({ code: 1001, msg: `cny_amount: ${amount.rule}`, data: null });
  // 64 random bits: at thousands of orders a second, 1e9 values per second collided now and then (a 500).
  const orderNo = `R${now}${randomBytes(8).toString('hex')}`;
  const fen = amount.fen;
  const ok = db.transaction(() => {
    if (insertNonce.run(String(body.api_key), String(body.nonce), now + 900).changes !== 1) return false;
    insertOrder.run(orderNo, merchant.id, String(body.paychannel_paymethod), fen, now);
    return true;
  })();
  if (!ok) return reply.status(401).send({ code: 2005, msg: 'nonce reused', data: null });
  return reply.send({ code: 1, msg: 'Order created', data: { order_no: orderNo, status: 'pending' }, time: String(now) });
});

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
console.log(JSON.stringify({ listening: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }));
const stop = () => void app.close().finally(() => db.close());
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
