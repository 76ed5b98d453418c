/**
 * Demo data for `serve --demo` on an empty data dir: one merchant, one
 * sandbox channel per category linked to it, settlement accounts for
 * beta/gamma sells and an opening balance. The secret is random per data dir, printed once.
 * Made as the administrator's (`serve --demo` is a CLI command): through
 * admin-actions, so the audit trail has every step, like any other change.
 */
import type { MerchantWithSecretView } from '../src-shared/schemas/operator';
import type { ChannelAdminView } from '../src-shared/schemas/operator';
import type { MerchantConsoleService } from './service';
import { CLI_ACTOR } from './services/audit-service';
import { formatFen } from '../src-shared/money';

export interface DemoSeed {
  merchant: MerchantWithSecretView;
  channels: ChannelAdminView[];
  /** Opening available balance in fen, so a sell order works out of the box. */
  openingBalance: number;
}

/** 10,000.00 CNY. */
export const DEMO_OPENING_BALANCE_FEN = 1_000_000;

export async function isEmptyStore(service: MerchantConsoleService): Promise<boolean> {
  return service.store.read(async (tx) => (await service.services.merchants.list(tx)).length === 0 && (await service.services.channels.list(tx)).length === 0);
}

/** One unit of work: the demo is there entirely or not at all. */
export function seedDemo(service: MerchantConsoleService): Promise<DemoSeed> {
  const actions = service.services.adminActions;
  return service.store.write(async (tx) => {
    const merchant = await actions.createMerchant(tx, CLI_ACTOR, { name: 'Demo Merchant', sign_type: 'hmac-sha256', callback_url: null });
    const created: ChannelAdminView[] = [];
    for (const category of ['alpha', 'beta', 'gamma'] as const) {
      created.push(
        await actions.createChannel(tx, CLI_ACTOR, {
          category,
          name: `Sandbox ${category}`,
          pay_methods: ['wxpay', 'alipay', 'bank'],
          driver: 'sandbox',
          service_rate: '0.006',
          passage_rate: category === 'gamma' ? '-0.001' : '0.002',
          deposit_rate: 50,
          base_rate: 30,
          min_amount: 100,
          max_amount: 5_000_000,
        }),
      );
    }
    for (const c of created) await actions.linkChannel(tx, CLI_ACTOR, { merchant_id: merchant.id, channel_id: c.id });
    await actions.addPaymentMethod(tx, CLI_ACTOR, { merchant_id: merchant.id, kind: 'bank', bank: '中国工商银行', sub_bank: '北京朝阳支行', card_number: '6222020200112233445', real_name: '演示商户' });
    await actions.addPaymentMethod(tx, CLI_ACTOR, { merchant_id: merchant.id, kind: 'alipay', card_number: 'demo-merchant@example.com', real_name: '演示商户' });
    await actions.addPaymentMethod(tx, CLI_ACTOR, { merchant_id: merchant.id, kind: 'wxpay', card_number: 'wxid_demo_merchant', real_name: '演示商户' });
    // An operator adjustment like any other: a ledger transaction with its reason.
    await actions.adjustBalance(tx, CLI_ACTOR, { merchant_id: merchant.id, amount: formatFen(DEMO_OPENING_BALANCE_FEN), reason: 'demo opening balance' });
    return { merchant, channels: created, openingBalance: DEMO_OPENING_BALANCE_FEN };
  });
}
