/**
 * The regionData response, prepared once: the envelope as bytes, a strong
 * ETag per content coding, and gzip/brotli bodies.
 *
 * Compression is lazy and asynchronous: the first request that asks for a
 * coding starts it on libuv's thread pool and every request waits on the
 * same promise. Maximum-quality brotli takes ~0.3 s on this payload, which
 * must not delay start-up (`serve` has to listen within 1 s) or block the
 * event loop; after the first time it is a buffer lookup.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';

export type RegionEncoding = 'br' | 'gzip' | 'identity';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Served with every regionData answer: the data changes only with an upgrade, and the ETag catches that. */
export const REGION_DATA_CACHE_CONTROL = 'public, max-age=3600';

export interface RegionPayload {
  /** The ETag of the uncompressed body; what the console caches the tree by. */
  etag: string;
  /** The ETag sent with a body in this coding (codings are different representations, so each has its own). */
  etagFor(encoding: RegionEncoding): string;
  /** Whether an If-None-Match header names any representation of this payload. */
  matches(ifNoneMatch: string | undefined): boolean;
  identity: Buffer;
  body(encoding: RegionEncoding): Promise<Buffer>;
}

export function createRegionPayload(identity: Buffer): RegionPayload {
  const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 32);
  const etags: Record<RegionEncoding, string> = { identity: `"${hash}"`, gzip: `"${hash}-gzip"`, br: `"${hash}-br"` };
  const opaque = new Set(Object.values(etags));
  const compressed: Partial<Record<'gzip' | 'br', Promise<Buffer>>> = {};

  const compress = (encoding: 'gzip' | 'br'): Promise<Buffer> =>
    encoding === 'gzip'
      ? gzipAsync(identity, { level: 9 })
      : brotliAsync(identity, {
          params: {
            [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
            [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
            [zlibConstants.BROTLI_PARAM_SIZE_HINT]: identity.length,
          },
        });

  return {
    etag: etags.identity,
    etagFor: (encoding) => etags[encoding],
    matches(ifNoneMatch) {
      if (ifNoneMatch === undefined) return false;
      // If-None-Match uses the weak comparison: W/ prefixes are ignored.
      return ifNoneMatch.split(',').some((raw) => {
        const tag = raw.trim().replace(/^W\//, '');
        return tag === '*' || opaque.has(tag);
      });
    },
    identity,
    body(encoding) {
      if (encoding === 'identity') return Promise.resolve(identity);
      let pending = compressed[encoding];
      if (!pending) {
        pending = compress(encoding);
        compressed[encoding] = pending;
        // A failure is not remembered: the next request tries again.
        pending.catch(() => {
          if (compressed[encoding] === pending) delete compressed[encoding];
        });
      }
      return pending;
    },
  };
}

/**
 * Picks the coding for an Accept-Encoding header: the highest q-value among
 * br, gzip and identity (br before gzip before identity on ties; `*` stands
 * for codings not named; identity not named ranks below any named coding).
 * identity is the answer when nothing else is acceptable: the body is small
 * enough, and a 406 helps no client.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): RegionEncoding {
  if (!acceptEncoding) return 'identity';
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    let weight = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*([0-9](?:\.[0-9]{0,3})?)\s*$/i.exec(param);
      if (m) weight = Math.min(1, Number(m[1]));
    }
    const coding = name === 'x-gzip' ? 'gzip' : name;
    q.set(coding, Math.max(weight, q.get(coding) ?? 0));
  }
  const wildcard = q.get('*');
  // Unnamed identity is acceptable but last in preference; other codings count only when named or covered by `*`.
  const weightOf = (coding: RegionEncoding): number => q.get(coding) ?? wildcard ?? (coding === 'identity' ? 0.0001 : 0);
  let best: RegionEncoding = 'identity';
  let bestWeight = 0;
  for (const coding of ['br', 'gzip', 'identity'] as const) {
    const w = weightOf(coding);
    if (w > bestWeight) {
      best = coding;
      bestWeight = w;
    }
  }
  return best;
}
