import { describe, expect, it } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { createRegionCacheStore, loadRegions, type RegionFetcher, type RegionLoadPhase } from '../../../src-renderer/region-cache/region-cache';
import type { RegionTree } from '../../../src-shared/schemas/region-api';

const TREE_V1: RegionTree = {
  北京市: { val: '110000', items: { 北京市: { val: '110100', items: { 东城区: '110101', 西城区: '110102' } } } },
  湖北省: { val: '420000', items: { 仙桃市: { val: '429004', items: { 仙桃市: '429004' } } } },
};
const TREE_V2: RegionTree = { ...TREE_V1, 天津市: { val: '120000', items: { 天津市: { val: '120100', items: { 和平区: '120101' } } } } };

/** A fake service: answers with the tree unless the ETag matches (then tree null), and records what it was asked. */
function service(state: { etag: string; tree: RegionTree; down?: boolean }) {
  const asked: (string | undefined)[] = [];
  const fetch: RegionFetcher = async (ifNoneMatch) => {
    asked.push(ifNoneMatch);
    if (state.down) throw new Error('connect ECONNREFUSED 127.0.0.1:8787');
    return ifNoneMatch === state.etag ? { etag: state.etag, tree: null } : { etag: state.etag, tree: structuredClone(state.tree) };
  };
  return { asked, fetch };
}

describe('region cache (IndexedDB)', () => {
  it('downloads once, then revalidates with the ETag and survives a restart', async () => {
    const idb = new IDBFactory();
    const state = { etag: '"v1"', tree: TREE_V1 };
    const s = service(state);
    const phases: RegionLoadPhase[] = [];

    const first = await loadRegions({ cache: createRegionCacheStore(idb), fetch: s.fetch, onPhase: (p) => phases.push(p), now: () => 1000 });
    expect(first).toMatchObject({ kind: 'downloaded', entry: { etag: '"v1"', tree: TREE_V1, savedAt: 1000 } });
    expect(phases).toEqual(['reading', 'downloading', 'saving']);
    expect(s.asked).toEqual([undefined]);

    // A new store over the same database = the app started again.
    let cachedEarly: unknown = null;
    const second = await loadRegions({ cache: createRegionCacheStore(idb), fetch: s.fetch, onCached: (c) => (cachedEarly = c.tree) });
    expect(second).toMatchObject({ kind: 'fresh', entry: { etag: '"v1"', tree: TREE_V1, savedAt: 1000 } });
    expect(cachedEarly).toEqual(TREE_V1);
    expect(s.asked).toEqual([undefined, '"v1"']);
  });

  it('replaces the cached tree when the service has a new version', async () => {
    const idb = new IDBFactory();
    const state = { etag: '"v1"', tree: TREE_V1 };
    const s = service(state);
    await loadRegions({ cache: createRegionCacheStore(idb), fetch: s.fetch });
    state.etag = '"v2"';
    state.tree = TREE_V2;
    const updated = await loadRegions({ cache: createRegionCacheStore(idb), fetch: s.fetch, now: () => 2000 });
    expect(updated).toMatchObject({ kind: 'downloaded', entry: { etag: '"v2"', savedAt: 2000 } });
    expect(await createRegionCacheStore(idb).read()).toMatchObject({ etag: '"v2"', tree: TREE_V2 });
  });

  it('works offline from the cache, and says so', async () => {
    const idb = new IDBFactory();
    const state = { etag: '"v1"', tree: TREE_V1, down: false };
    const s = service(state);
    await loadRegions({ cache: createRegionCacheStore(idb), fetch: s.fetch });
    state.down = true;
    const offline = await loadRegions({ cache: createRegionCacheStore(idb), fetch: s.fetch });
    expect(offline.kind).toBe('offline');
    if (offline.kind === 'offline') {
      expect(offline.entry.tree).toEqual(TREE_V1);
      expect(offline.error.message).toContain('ECONNREFUSED');
    }
  });

  it('is unavailable with neither cache nor service', async () => {
    const s = service({ etag: '"v1"', tree: TREE_V1, down: true });
    const outcome = await loadRegions({ cache: createRegionCacheStore(new IDBFactory()), fetch: s.fetch });
    expect(outcome.kind).toBe('unavailable');
  });

  it('treats an unreadable cache record as no cache and refetches', async () => {
    const idb = new IDBFactory();
    const cache = createRegionCacheStore(idb);
    await cache.write({ etag: '"v1"', tree: TREE_V1, savedAt: 1 });
    // Corrupt the record behind the store's back.
    await new Promise<void>((resolve, reject) => {
      const open = idb.open('merchant-console');
      open.onsuccess = () => {
        const tx = open.result.transaction('regions', 'readwrite');
        tx.objectStore('regions').put({ etag: 42 }, 'tree');
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      };
    });
    const s = service({ etag: '"v1"', tree: TREE_V1 });
    const outcome = await loadRegions({ cache: createRegionCacheStore(idb), fetch: s.fetch });
    expect(s.asked).toEqual([undefined]);
    expect(outcome.kind).toBe('downloaded');
  });

  it('still hands out a downloaded tree when it cannot be saved', async () => {
    const s = service({ etag: '"v1"', tree: TREE_V1 });
    const failing = { read: async () => null, write: async () => Promise.reject(new Error('QuotaExceededError')), clear: async () => undefined };
    const outcome = await loadRegions({ cache: failing, fetch: s.fetch });
    expect(outcome).toMatchObject({ kind: 'downloaded', entry: { tree: TREE_V1 } });
  });
});
