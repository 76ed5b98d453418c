/** Realistic contract-shaped data for component tests. */
import type { ConsoleResponse } from '../../../src-shared/console-api/contract';

type Channel = ConsoleResponse<'listPayChannels'>['list'][number];

export function channel(overrides: Partial<Channel> & Pick<Channel, 'id' | 'category'>): Channel {
  const pay_methods = overrides.pay_methods ?? ['wxpay', 'alipay', 'bank'];
  return {
    name: `Sandbox ${overrides.category}`,
    pay_method: pay_methods.join(','),
    category_text: overrides.category[0]!.toUpperCase() + overrides.category.slice(1),
    pay_method_text: pay_methods.map((m) => m[0]!.toUpperCase() + m.slice(1)).join(','),
    createtime: 1767225600,
    updatetime: 1767225600,
    pay_methods,
    min_amount: '1.00',
    max_amount: '50000.00',
    fees: { service_rate: '0.006', passage_rate: '0.002', deposit_rate: 50, base_rate: 30 },
    ...overrides,
  };
}

export const MERCHANT = {
  id: 1,
  name: 'Demo Merchant',
  api_key: 'mk_demo_0001',
  sign_type: 'hmac-sha256' as const,
  callback_url: null,
  enabled: true,
  createtime: 1767225600,
  updatetime: 1767225600,
};
