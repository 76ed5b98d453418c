/**
 * The merchant and channel forms refuse what the service's schemas refuse:
 * one callback URL rule for the merchant editor and the developer settings,
 * one config key rule for a new channel and new credentials.
 */
import { describe, expect, it } from 'vitest';
import { callbackUrlCheck } from '../../../src-renderer/forms/merchant-rules';
import { configKeysCheck, configOf } from '../../../src-renderer/views/channels/modules/channel-config';
import { channelConfig, merchantUpdateInput } from '../../../src-shared/schemas/operator';

describe('merchant and channel rules', () => {
  const check = callbackUrlCheck((m: { url: string }) => m.url);

  it.each([
    ['', true],
    ['   ', true],
    ['https://shop.example/notify', true],
    [' http://10.0.0.7:8080/cb ', true],
    ['ftp://shop.example/notify', false],
    ['shop.example/notify', false],
    [`https://shop.example/${'a'.repeat(2048)}`, false],
  ])('callback URL %j accepted: %s, as the service would', (url, ok) => {
    expect(check({ url }) === null).toBe(ok);
    expect(merchantUpdateInput.shape.callback_url.safeParse(url.trim() || null).success).toBe(ok);
  });

  it('checks every config key as the service does and sends the entries as one object', () => {
    const good = [
      { key: 'app_id', value: '1' },
      { key: 'key.v2-b', value: 'secret' },
    ];
    expect(configKeysCheck({ config: good })).toBeNull();
    expect(channelConfig.safeParse(configOf(good)).success).toBe(true);
    expect(configOf(good)).toEqual({ app_id: '1', 'key.v2-b': 'secret' });
    for (const key of ['', 'has space', 'k'.repeat(65)]) {
      expect(configKeysCheck({ config: [...good, { key, value: 'x' }] })).toEqual({ key: 'channels.rules.configKey' });
      expect(channelConfig.safeParse(configOf([{ key, value: 'x' }])).success).toBe(false);
    }
  });
});
