import { describe, expect, it } from 'vitest';
import { createConsoleApiHandle } from '../../../src-renderer/api/console-api';
import { ConsoleApiError, createHttpConsoleBridge, TRANSPORT_ERROR_CODE } from '../../../src-shared/console-api/client';
import { ErrorCode } from '../../../src-shared/errors';
import { fakeBridge, ServiceError } from '../support/fake-bridge';

describe('console API handle', () => {
  it('uses the desktop bridge when one is given, and says so', async () => {
    const fake = fakeBridge({ getServiceInfo: () => ({ version: '1.2.3', data_dir: '/d', listener_url: null, listener_error: 'port 8787 is busy' }) });
    const handle = createConsoleApiHandle(fake.bridge);
    expect(handle.desktop).toBe(true);
    expect(await handle.api.getServiceInfo({})).toMatchObject({ version: '1.2.3', listener_error: 'port 8787 is busy' });
  });

  it('raises the service’s code and message, and flags an expired console session once seen', async () => {
    const fake = fakeBridge({
      listMerchants: () => new ServiceError(ErrorCode.AUTH_CONSOLE_SESSION, 'console session: missing or expired'),
      getSettings: () => new ServiceError(ErrorCode.VALIDATION, 'port: must be at most 65535'),
    });
    const handle = createConsoleApiHandle(fake.bridge);
    const validation = await handle.api.getSettings({}).catch((e: unknown) => e);
    expect(validation).toBeInstanceOf(ConsoleApiError);
    expect((validation as ConsoleApiError).field).toBe('port');
    expect(handle.sessionExpired.value).toBe(false);

    await expect(handle.api.listMerchants({})).rejects.toMatchObject({ code: ErrorCode.AUTH_CONSOLE_SESSION });
    expect(handle.sessionExpired.value).toBe(true);
  });

  it('turns an unreachable service into a transport error', async () => {
    const bridge = createHttpConsoleBridge('http://127.0.0.1:9', () => Promise.reject(new TypeError('Failed to fetch')));
    const handle = createConsoleApiHandle(bridge);
    await expect(handle.api.getServiceInfo({})).rejects.toMatchObject({ code: TRANSPORT_ERROR_CODE, message: 'Failed to fetch' });
  });
});
