import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../../src-main/http/openapi/openapi-document';
import { cli } from '../../support/cli-harness';
import { testListener, testService } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';

describe('merchant-console openapi', () => {
  it('prints the document the listener serves, for the stored listener settings (base path, server URL)', async () => {
    const dir = tempDir();
    const stored = await testService({ dataDir: dir });
    await stored.store.write((tx) => stored.services.settings.updateListener(tx, { host: '127.0.0.2', port: 9191, base_path: '/shop/pay' }));
    await stored.close();

    const res = await cli(['openapi', '--data-dir', dir]);
    expect([res.code, res.stderr]).toEqual([0, '']);
    const doc = JSON.parse(res.stdout) as OpenApiDocument;
    expect(res.stdout.split('\n').length).toBeGreaterThan(100);
    expect(doc.servers).toEqual([{ url: 'http://127.0.0.2:9191' }]);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/shop/pay/merchant/createOrder', '/shop/pay/openapi.json', '/addons/paychannel/channel/alpha/regionData']));

    // The same document a listener on that base path serves, but for where it is reached.
    const listener = await testListener(await testService(), { basePath: '/shop/pay' });
    const served = (await (await fetch(`${listener.url}/shop/pay/openapi.json`)).json()) as OpenApiDocument;
    expect({ ...doc, servers: served.servers }).toEqual(served);
  });

  it('--base-path overrides the setting; --json prints one line; a bad base path is a usage error', async () => {
    const dir = tempDir();
    const res = await cli(['openapi', '--data-dir', dir, '--base-path', '/v2/', '--json']);
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')).toHaveLength(1);
    expect(Object.keys((res.json() as unknown as OpenApiDocument).paths)).toContain('/v2/merchant/orderQueryList');

    const bad = await cli(['openapi', '--data-dir', dir, '--base-path', 'no slash']);
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toContain('--base-path: base path "no slash" must look like /segment/segment');
  });
});
