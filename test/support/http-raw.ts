/**
 * Plain node:http requests for tests that need full control of headers
 * fetch would forbid or add (Host, Origin, Cookie, Sec-Fetch-Site).
 */
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json<T = { code: number; msg: string; data: unknown }>(): T;
}

/**
 * One request on its own connection (no keep-alive: a refused request may
 * close its socket). `path` is sent verbatim, unnormalised, so tests can
 * send paths a URL parser would rewrite.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  { headers = {}, body }: { headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent: false,
        headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, headers: res.headers, body: text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
