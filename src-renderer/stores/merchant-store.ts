/**
 * The merchant the console acts for (the switcher), the merchant list, and
 * operator mode. The choice survives restarts (localStorage).
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import { useConsoleApi } from '../api/console-api';
import { toError } from '../composables/use-api-error';
import type { ConsoleResponse } from '../../src-shared/console-api/contract';
import { merchantLabel } from '../utils/format';
import { isBoolean, isPositiveInt, readSetting, writeSetting } from '../utils/local-setting';

export type MerchantSummary = ConsoleResponse<'listMerchants'>[number];

const CURRENT_KEY = 'mc.currentMerchant';
const OPERATOR_KEY = 'mc.operatorMode';

export const useMerchantStore = defineStore('merchant', () => {
  const api = useConsoleApi();
  const merchants = shallowRef<MerchantSummary[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const error = shallowRef<Error | null>(null);
  const currentId = ref<number | null>(readSetting<number | null>(CURRENT_KEY, isPositiveInt, null));
  const operatorMode = ref(readSetting(OPERATOR_KEY, isBoolean, false));

  const current = computed(() => merchants.value.find((m) => m.id === currentId.value) ?? null);
  /** Options of every merchant picker (switcher, filters, account scope, channel links). */
  const options = computed(() => merchants.value.map((m) => ({ value: m.id, label: merchantLabel(m.id, m.name) })));

  /** A merchant by id as the lists name it (`#id` alone when the list does not hold it). */
  function labelOf(id: number): string {
    return merchantLabel(id, merchants.value.find((m) => m.id === id)?.name);
  }

  async function load(): Promise<void> {
    loading.value = true;
    try {
      merchants.value = await api.listMerchants({});
      error.value = null;
      loaded.value = true;
      if (!merchants.value.some((m) => m.id === currentId.value)) {
        // Keep acting for the remembered merchant if it still exists; else the first enabled one.
        const fallback = merchants.value.find((m) => m.enabled) ?? merchants.value[0];
        currentId.value = fallback?.id ?? null;
      }
    } catch (err) {
      error.value = toError(err);
    } finally {
      loading.value = false;
    }
  }

  /** Pages that only name merchants load the list once, not on every visit. */
  function loadOnce(): void {
    if (!loaded.value) void load();
  }

  function select(id: number): void {
    if (merchants.value.some((m) => m.id === id)) currentId.value = id;
  }

  /** After a create/update elsewhere (settings), without a round trip. */
  function upsert(merchant: MerchantSummary): void {
    const list = merchants.value.filter((m) => m.id !== merchant.id);
    list.push(merchant);
    list.sort((a, b) => a.id - b.id);
    merchants.value = list;
    if (currentId.value === null) currentId.value = merchant.id;
  }

  watch(currentId, (id) => writeSetting(CURRENT_KEY, id));
  watch(operatorMode, (on) => writeSetting(OPERATOR_KEY, on));

  return { merchants, loaded, loading, error, currentId, current, options, operatorMode, load, loadOnce, labelOf, select, upsert };
});

/** The current merchant's id; pages that act for a merchant render only when it is set. */
export function requireMerchantId(store: ReturnType<typeof useMerchantStore>): number {
  if (store.currentId === null) throw new Error('no merchant selected');
  return store.currentId;
}
