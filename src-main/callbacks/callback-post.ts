/**
 * One callback POST (node:http/https), sent only where the callback URL
 * policy allows: the URL is checked first (scheme, credentials, a literal
 * address), then every address its host name resolves to, inside the lookup
 * the socket connects with, so no second resolution can answer differently.
 * Redirects are not followed; at most `readLimit` bytes of the answer are read.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { callbackAddressProblem, callbackUrlProblem, urlPort, type CallbackUrlPolicy } from './callback-url-policy';

/** The policy refused the destination: nothing was sent. */
export class CallbackRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackRefusedError';
  }
}

export interface CallbackPostOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
  readLimit: number;
  policy: CallbackUrlPolicy;
  /** The resolver (default dns.lookup; tests give names without a network). */
  lookup?: LookupFunction | undefined;
}

export function postCallback(url: string, body: string, options: CallbackPostOptions): Promise<{ status: number; body: Buffer }> {
  const problem = callbackUrlProblem(url, options.policy);
  if (problem) return Promise.reject(new CallbackRefusedError(problem));
  const target = new URL(url);
  const port = urlPort(target);
  const resolve = options.lookup ?? (dns.lookup as LookupFunction);
  // Every address is checked, not only the first: the socket may try the others.
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as LookupAddress[];
      for (const { address } of list) {
        const refused = callbackAddressProblem(address, port, options.policy, hostname);
        if (refused) return callback(new CallbackRefusedError(refused), '', 4);
      }
      if (lookupOptions.all) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
  return new Promise((resolvePost, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup,
        signal: options.signal,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => resolvePost({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, options.readLimit) });
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // Enough to decide: stop reading (and close the connection).
          if (size >= options.readLimit) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
