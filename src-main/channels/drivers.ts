/** Driver per channel: `channels.driver` names it (only 'sandbox' exists so far). */
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { ChannelRow } from '../repositories/channel-repository';
import type { ChannelDriver } from './channel-driver';
import { createSandboxDriver, type SandboxDriverDeps } from './sandbox-driver';

export function createChannelDrivers(deps: SandboxDriverDeps) {
  const sandbox = createSandboxDriver(deps);
  const byName: Record<string, ChannelDriver> = { sandbox };
  return {
    sandbox,
    for(channel: ChannelRow): ChannelDriver {
      const driver = byName[channel.driver];
      if (!driver) throw new AppError(ErrorCode.CHANNEL_FAILURE, `channel ${channel.id}: no driver named ${channel.driver}`);
      return driver;
    },
  };
}
export type ChannelDrivers = ReturnType<typeof createChannelDrivers>;
