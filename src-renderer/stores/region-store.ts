/**
 * The region tree every picker and the Regions page use: read from
 * IndexedDB at start-up, revalidated against the service with its ETag,
 * replaced when the service has newer data, kept when the service is down.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import { useConsoleApi } from '../api/console-api';
import {
  createRegionCacheStore,
  loadRegions,
  type CachedRegions,
  type RegionCacheStore,
  type RegionFetcher,
  type RegionLoadPhase,
} from '../region-cache/region-cache';
import { buildRegionIndex, type RegionIndex } from '../region-cache/region-index';

export type RegionStatus = 'idle' | RegionLoadPhase | 'ready' | 'offline' | 'error';

let cacheFactory: () => RegionCacheStore = () => createRegionCacheStore();
/** Tests swap IndexedDB (fake-indexeddb) through this. */
export function setRegionCacheFactory(factory: () => RegionCacheStore): void {
  cacheFactory = factory;
}

export const useRegionStore = defineStore('regions', () => {
  const api = useConsoleApi();
  const status = ref<RegionStatus>('idle');
  const entry = shallowRef<CachedRegions | null>(null);
  const error = shallowRef<Error | null>(null);
  let running: Promise<void> | null = null;

  const index = computed<RegionIndex | null>(() => (entry.value ? buildRegionIndex(entry.value.tree) : null));
  /** Usable by pickers (possibly from the cache while revalidating). */
  const available = computed(() => index.value !== null);
  const busy = computed(() => status.value === 'reading' || status.value === 'checking' || status.value === 'downloading' || status.value === 'saving');

  const fetchRegions: RegionFetcher = async (ifNoneMatch) => {
    const answer = await api.getRegionData(ifNoneMatch === undefined ? {} : { if_none_match: ifNoneMatch });
    return { etag: answer.etag, tree: answer.tree };
  };

  async function run(): Promise<void> {
    error.value = null;
    const outcome = await loadRegions({
      cache: cacheFactory(),
      fetch: fetchRegions,
      onPhase: (phase) => (status.value = phase),
      onCached: (cached) => (entry.value = cached),
    });
    switch (outcome.kind) {
      case 'downloaded':
      case 'fresh':
        entry.value = outcome.entry;
        status.value = 'ready';
        break;
      case 'offline':
        entry.value = outcome.entry;
        error.value = outcome.error;
        status.value = 'offline';
        break;
      case 'unavailable':
        error.value = outcome.error;
        status.value = 'error';
        break;
    }
  }

  /** Loads once per start-up; later callers share the same run. */
  function ensureLoaded(): Promise<void> {
    return (running ??= run());
  }

  /** Revalidates again (the Regions page's "check for updates"). */
  function refresh(): Promise<void> {
    running = run();
    return running;
  }

  return { status, entry, index, available, busy, error, ensureLoaded, refresh };
});
