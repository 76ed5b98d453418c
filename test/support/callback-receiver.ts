/**
 * A merchant's callback endpoint for tests: a real HTTP server on
 * 127.0.0.1 (ephemeral port) that records every request and answers as the
 * test says.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface ReceivedCallback {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  fields: Record<string, string>;
}

export interface ReceiverAnswer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Never answer (the client times out or is stopped). */
  hang?: boolean;
}

export interface CallbackReceiver {
  url: string;
  received: ReceivedCallback[];
  close(): Promise<void>;
}

const open: CallbackReceiver[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

/** `answer` may answer later (a promise): the request stays open until it settles. */
export async function startReceiver(answer: (request: ReceivedCallback, index: number) => ReceiverAnswer | Promise<ReceiverAnswer>): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: ReceivedCallback = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        fields: Object.fromEntries(new URLSearchParams(body)),
      };
      received.push(r);
      void Promise.resolve(answer(r, received.length - 1)).then((a) => {
        if (a.hang || res.destroyed) return;
        res.writeHead(a.status, { 'content-type': 'text/plain; charset=utf-8', ...a.headers });
        res.end(a.body ?? '');
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: CallbackReceiver = {
    url: `http://127.0.0.1:${port}/notify/callback`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  open.push(receiver);
  return receiver;
}
