/**
 * The part buy and sell order forms share: the current merchant's enabled
 * linked channels, the chosen channel and pay method (kept to that channel's
 * methods), the amount within the channel's limits, their form rules and
 * their part of the createOrder request. The fields are OrderChannelFields.
 */
import { computed, onMounted, ref, shallowRef, watch } from 'vue';
import type { FormRules } from 'naive-ui';
import type { ConsoleResponse } from '../../src-shared/console-api/contract';
import type { PayMethod } from '../../src-shared/constants';
import { parseYuan } from '../../src-shared/money';
import { useConsoleApi } from '../api/console-api';
import { errorText } from '../composables/use-api-error';
import { useT } from '../i18n';
import { requireMerchantId, useMerchantStore } from '../stores/merchant-store';
import { checkAmount, normaliseAmount, type AmountContext } from './amount-rules';
import { problem, toFormRules, type FormChecks } from './field-check';
import { newIdempotencyKey } from './idempotency-key';

export type OrderChannel = ConsoleResponse<'listPayChannels'>['list'][number];

export interface OrderChannelModel {
  paychannel_id: number | null;
  paychannel_paymethod: PayMethod | null;
  cny_amount: string;
}

export const ORDER_CHANNEL_FIELDS = ['paychannel_id', 'paychannel_paymethod', 'cny_amount'] as const;
export type OrderChannelField = (typeof ORDER_CHANNEL_FIELDS)[number];

function fenOf(yuan: string): number | undefined {
  const parsed = parseYuan(yuan);
  return parsed.ok ? parsed.fen : undefined;
}

/**
 * `model` is the form's whole (reactive) model; `amountContext` adds what the
 * order type checks beyond the channel's limits (a sell: balance and fees).
 */
export function useOrderForm(model: OrderChannelModel, amountContext: (channel: OrderChannel | null) => AmountContext = () => ({})) {
  const t = useT();
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
      if (!channels.value.some((c) => c.id === model.paychannel_id)) model.paychannel_id = channels.value[0]?.id ?? null;
    } catch (err) {
      error.value = errorText(err);
    } finally {
      loading.value = false;
    }
  }

  const channel = computed(() => channels.value.find((c) => c.id === model.paychannel_id) ?? null);

  // Pay methods are limited to the channel's: keep the choice when it still applies.
  watch(
    channel,
    (c) => {
      if (!c) model.paychannel_paymethod = null;
      else if (!model.paychannel_paymethod || !c.pay_methods.includes(model.paychannel_paymethod)) model.paychannel_paymethod = c.pay_methods[0] ?? null;
    },
    { immediate: true },
  );

  const checks: FormChecks<OrderChannelModel> = {
    paychannel_id: (m) => (m.paychannel_id === null ? problem('orderForm.rules.channelRequired') : null),
    paychannel_paymethod: (m) => (m.paychannel_paymethod === null ? problem('orderForm.rules.payMethodRequired') : null),
    cny_amount: (m) => {
      const c = channel.value;
      const limits: AmountContext = c ? { minFen: fenOf(c.min_amount), maxFen: fenOf(c.max_amount) } : {};
      const r = checkAmount(m.cny_amount, { ...limits, ...amountContext(c) });
      return r.ok ? null : r.problem;
    },
  };
  // The amount is checked while typing, so a limit (or, for a sell, the balance) shows before submitting.
  const rules: FormRules = toFormRules(checks, () => model, t, { cny_amount: ['input', 'blur'] }, ORDER_CHANNEL_FIELDS);

  // One key per order being filled in (forms/idempotency-key.ts).
  let idempotencyKey = newIdempotencyKey();

  /**
   * This part of the createOrder request, with the idempotency key of the order being filled in;
   * called once the rules passed, so both choices are made.
   */
  function request(): { cny_amount: string; paychannel_id: number; paychannel_paymethod: PayMethod; idempotency_key: string } {
    if (model.paychannel_id === null || model.paychannel_paymethod === null) throw new Error('no channel or pay method chosen');
    return {
      cny_amount: normaliseAmount(model.cny_amount),
      paychannel_id: model.paychannel_id,
      paychannel_paymethod: model.paychannel_paymethod,
      idempotency_key: idempotencyKey,
    };
  }

  /** The order was created: the next one is another order and gets its own key. */
  function created(): void {
    idempotencyKey = newIdempotencyKey();
  }

  onMounted(load);
  return { channels, channel, loading, error, rules, request, created, reload: load };
}
