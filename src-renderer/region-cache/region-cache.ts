/**
 * The region tree cached in IndexedDB: one record (tree + its ETag + when it
 * was saved). `loadRegions` reads the cache, revalidates it against the
 * service with the ETag (If-None-Match semantics), stores a new tree when
 * the service sends one, and falls back to the cache when the service is
 * unreachable — so pickers work offline and across restarts.
 */
import type { RegionTree } from '../../src-shared/schemas/region-api';

export interface CachedRegions {
  etag: string;
  tree: RegionTree;
  /** Epoch ms when this copy was saved. */
  savedAt: number;
}

export interface RegionCacheStore {
  read(): Promise<CachedRegions | null>;
  write(entry: CachedRegions): Promise<void>;
  clear(): Promise<void>;
}

const DB_VERSION = 1;
const STORE = 'regions';
const KEY = 'tree';

function promisify<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

function openDb(factory: IDBFactory, name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open(name, DB_VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB open failed'));
    request.onblocked = () => reject(new Error('IndexedDB open blocked by another tab'));
  });
}

function isCachedRegions(value: unknown): value is CachedRegions {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.etag === 'string' && typeof v.savedAt === 'number' && typeof v.tree === 'object' && v.tree !== null;
}

export function createRegionCacheStore(factory: IDBFactory = indexedDB, dbName = 'merchant-console'): RegionCacheStore {
  let dbPromise: Promise<IDBDatabase> | null = null;
  const db = () => (dbPromise ??= openDb(factory, dbName));

  async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
    const tx = (await db()).transaction(STORE, mode);
    const result = promisify(work(tx.objectStore(STORE)));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
    return result;
  }

  return {
    async read() {
      const value: unknown = await run('readonly', (s) => s.get(KEY));
      return isCachedRegions(value) ? value : null;
    },
    async write(entry) {
      await run('readwrite', (s) => s.put(entry, KEY));
    },
    async clear() {
      await run('readwrite', (s) => s.delete(KEY));
    },
  };
}

/** What the service answers to a revalidation: a new tree, or null when the ETag still matches. */
export interface RegionFetchResult {
  etag: string;
  tree: RegionTree | null;
}
export type RegionFetcher = (ifNoneMatch: string | undefined) => Promise<RegionFetchResult>;

export type RegionLoadPhase = 'reading' | 'checking' | 'downloading' | 'saving';

export type RegionLoadOutcome =
  /** From the service: the cache was stale or empty, and now holds this. */
  | { kind: 'downloaded'; entry: CachedRegions }
  /** The cached copy is current. */
  | { kind: 'fresh'; entry: CachedRegions }
  /** The service could not be asked; the cached copy is used as is. */
  | { kind: 'offline'; entry: CachedRegions; error: Error }
  /** Neither cache nor service. */
  | { kind: 'unavailable'; error: Error };

export interface LoadRegionsOptions {
  cache: RegionCacheStore;
  fetch: RegionFetcher;
  onPhase?: (phase: RegionLoadPhase) => void;
  /** Called with the cached copy as soon as it is read, before revalidation. */
  onCached?: (entry: CachedRegions) => void;
  now?: () => number;
}

export async function loadRegions(options: LoadRegionsOptions): Promise<RegionLoadOutcome> {
  const now = options.now ?? Date.now;
  options.onPhase?.('reading');
  let cached: CachedRegions | null = null;
  try {
    cached = await options.cache.read();
  } catch {
    cached = null; // A broken cache is the same as none: fetch again.
  }
  if (cached) options.onCached?.(cached);
  // The service gave no usable tree: keep to the cached copy if there is one.
  const withoutService = (err: unknown): RegionLoadOutcome => {
    const error = err instanceof Error ? err : new Error(String(err));
    return cached ? { kind: 'offline', entry: cached, error } : { kind: 'unavailable', error };
  };

  options.onPhase?.(cached ? 'checking' : 'downloading');
  let answer: RegionFetchResult;
  try {
    answer = await options.fetch(cached?.etag);
  } catch (err) {
    return withoutService(err);
  }
  if (answer.tree === null) {
    if (cached && cached.etag === answer.etag) return { kind: 'fresh', entry: cached };
    // "Not modified" for an ETag we do not hold cannot be used; ask for the whole tree.
    try {
      answer = await options.fetch(undefined);
    } catch (err) {
      return withoutService(err);
    }
    if (answer.tree === null) return withoutService(new Error('the service sent no region data'));
  }
  const entry: CachedRegions = { etag: answer.etag, tree: answer.tree, savedAt: now() };
  options.onPhase?.('saving');
  try {
    await options.cache.write(entry);
  } catch {
    // Not cached this time (quota, private mode): still usable for this session.
  }
  return { kind: 'downloaded', entry };
}
