/**
 * Channel credentials are changed apart from the channel's other settings:
 * editing a channel never sends its config; new credentials go through
 * changeChannelCredentials and wait for a second person's approval.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import AllChannels from '../../../src-renderer/views/channels/modules/all-channels.vue';
import type { ConsoleResponse } from '../../../src-shared/console-api/contract';
import { fakeBridge } from '../support/fake-bridge';
import { approval, OWNER_SESSION } from '../support/fixtures';
import { mountPage, settle, unmountAll, waitForElement } from '../support/mount-page';

afterEach(unmountAll);

type AdminChannel = ConsoleResponse<'listChannels'>[number];
const CHANNEL = {
  id: 4,
  category: 'beta',
  name: 'Bank partner',
  pay_method: 'alipay,wxpay',
  driver: 'sandbox',
  service_rate: '0.006',
  passage_rate: '0.002',
  deposit_rate: 50,
  base_rate: 30,
  min_amount: '1.00',
  max_amount: '50000.00',
  enabled: true,
  config_masked: { api_key: '****cdef' },
  createtime: 1767225600,
  updatetime: 1767225600,
} as unknown as AdminChannel;

async function type(selector: string, text: string): Promise<void> {
  const input = document.querySelector<HTMLInputElement>(`${selector} input`);
  if (!input) throw new Error(`no input under ${selector}`);
  input.value = text;
  input.dispatchEvent(new Event('input'));
  await flushPromises();
}

describe('channel credentials', () => {
  it('are requested for approval with the entries given; the request is shown', async () => {
    const request = approval({
      id: 55,
      kind: 'channel_credentials',
      merchant_id: null,
      merchant_name: null,
      title: 'New credentials for channel Bank partner (#4)',
      title_params: { channel: 'Bank partner', channel_id: '4' },
      changes: [{ key: 'credential_keys', label: 'credential keys (values hidden)', before: 'api_key', after: 'api_key' }],
      mine: true,
      can_decide: false,
    });
    const fake = fakeBridge({ listChannels: () => [CHANNEL], changeChannelCredentials: () => ({ done: null, approval: request }), getSession: () => OWNER_SESSION });
    await mountPage(AllChannels, { bridge: fake.bridge });
    await settle();
    (document.querySelector('[data-test="channel-credentials-open"]') as HTMLElement).click();
    await waitForElement('[data-test="channel-credentials"]');
    expect(document.querySelector('[data-test="channel-credentials"]')!.textContent).toContain('api_key: ****cdef');

    await type('[data-test="channel-credentials"] [data-test="config-key"]', 'api_key');
    await type('[data-test="channel-credentials"] [data-test="config-value"]', 'k-new');
    (document.querySelector('[data-test="channel-credentials-submit"]') as HTMLElement).click();
    await settle();
    expect(fake.callsOf('changeChannelCredentials')).toEqual([{ id: 4, config: { api_key: 'k-new' } }]);
    const pending = await waitForElement('[data-test="channel-credentials"] [data-test="approval-pending"]');
    expect(pending.textContent).toContain('New credentials for channel Bank partner (#4)');
  });

  it('editing a channel never sends its config', async () => {
    const fake = fakeBridge({ listChannels: () => [CHANNEL], updateChannel: () => CHANNEL });
    await mountPage(AllChannels, { bridge: fake.bridge });
    await settle();
    (document.querySelector('[data-test="edit-channel"]') as HTMLElement).click();
    await waitForElement('[data-test="channel-editor"]');
    expect(document.querySelector('[data-test="channel-editor"] [data-test="config-entries"]')).toBeNull();
    (document.querySelector('[data-test="save-channel"]') as HTMLElement).click();
    await settle();
    const call = fake.callsOf('updateChannel')[0]!;
    expect(call).toMatchObject({ id: 4, name: 'Bank partner' });
    expect('config' in call).toBe(false);
  });
});
