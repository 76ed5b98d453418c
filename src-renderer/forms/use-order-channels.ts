/**
 * The channels an order form may use: enabled channels linked to the
 * current merchant, with their pay methods, limits and effective fees.
 */
import { computed, onMounted, ref, shallowRef, watch, type Ref } from 'vue';
import type { ConsoleResponse } from '../../src-shared/console-api/contract';
import type { PayMethod } from '../../src-shared/constants';
import { parseYuan } from '../../src-shared/money';
import { useConsoleApi } from '../api/console-api';
import { errorText } from '../composables/use-api-error';
import { requireMerchantId, useMerchantStore } from '../stores/merchant-store';
import type { AmountContext } from './amount-rules';

export type OrderChannel = ConsoleResponse<'listPayChannels'>['list'][number];

function fenOf(yuan: string): number | undefined {
  const parsed = parseYuan(yuan);
  return parsed.ok ? parsed.fen : undefined;
}

export function useOrderChannels(selectedId: Ref<number | null>, selectedMethod: Ref<PayMethod | null>) {
  const api = useConsoleApi();
  const merchants = useMerchantStore();
  const channels = shallowRef<OrderChannel[]>([]);
  const loading = ref(false);
  const error = ref<string | null>(null);

  async function load(): Promise<void> {
    loading.value = true;
    try {
      const result = await api.listPayChannels({ merchant_id: requireMerchantId(merchants) });
      channels.value = result.list;
      error.value = null;
      if (!channels.value.some((c) => c.id === selectedId.value)) selectedId.value = channels.value[0]?.id ?? null;
    } catch (err) {
      error.value = errorText(err);
    } finally {
      loading.value = false;
    }
  }

  const channel = computed(() => channels.value.find((c) => c.id === selectedId.value) ?? null);

  // Pay methods are limited to the channel's: keep the choice when it still applies.
  watch(
    channel,
    (c) => {
      if (!c) selectedMethod.value = null;
      else if (!selectedMethod.value || !c.pay_methods.includes(selectedMethod.value)) selectedMethod.value = c.pay_methods[0] ?? null;
    },
    { immediate: true },
  );

  const limits = computed<AmountContext>(() => (channel.value ? { minFen: fenOf(channel.value.min_amount), maxFen: fenOf(channel.value.max_amount) } : {}));

  onMounted(load);
  return { channels, channel, loading, error, limits, reload: load };
}
