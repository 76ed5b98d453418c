/**
 * The sandbox channel: behaves like a real one, entirely on this machine.
 *
 * - Pay-in: the payer is sent to the hosted checkout page /pay/<token> on the
 *   embedded listener; its Pay/Fail buttons make the sandbox send a signed
 *   notification to /channel/notify/<channel_id>, as a real channel would.
 * - Payout: accepted at once; reported paid out when asked after the
 *   channel's payout delay (the worker asks when the delay is over).
 * - Settlement: a paid order reports settled when asked (after the settle delay).
 *
 * Notifications are JSON, signed with HMAC-SHA256 over the same canonical
 * string as merchant requests (docs/api.md), keyed by the channel's
 * `notify_secret` (generated into the channel's encrypted config on first use).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { computeSignature, verifySignature } from '../../src-shared/client/sign';
import { checkTimestampFresh, nonceMember, timestampMember } from '../../src-shared/freshness';
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { JsonObject } from '../../src-shared/json/lossless-json';
import { parseOrThrow } from '../../src-shared/validation/parse';
import { newNonce } from '../../src-shared/client/merchant-client';
import type { ChannelRow } from '../repositories/channel-repository';
import type { OrderRow } from '../repositories/order-repository';
import type { Clock, PublicUrl } from '../services/context';
import { CHANNEL_EVENTS, type ChannelEvent } from './channel-events';
import type { ChannelDriver, ChannelStatusReport, PayoutStart, VerifiedNotification } from './channel-driver';

export const SANDBOX_NOTIFY_SECRET_KEY = 'notify_secret';

const notificationAuth = {
  timestamp: timestampMember,
  nonce: nonceMember('New for every notification of the channel.'),
  signature: z.string().min(1).meta({ description: "Uppercase hex HMAC-SHA256 over the canonical string (docs/api.md), keyed by the channel's notify_secret." }),
};

/** The JSON body the sandbox channel POSTs to /channel/notify/<channel_id> (also what the API reference shows). */
export const sandboxNotificationBody = z.strictObject({
  order_no: z.string().min(1).max(64),
  event: z.enum(CHANNEL_EVENTS),
  amount: z.int().min(1).meta({ description: 'The order amount in fen; must equal the order\'s cny_amount.' }),
  reason: z.string().max(256).optional(),
  ...notificationAuth,
});
export type SandboxNotification = Required<z.output<typeof sandboxNotificationBody>>;

/** A missing or malformed timestamp, nonce or signature is an authentication error (2001), as for merchant requests. */
const codeOfIssue = (issue: { path: readonly PropertyKey[] }) =>
  Object.hasOwn(notificationAuth, String(issue.path[0])) ? ErrorCode.AUTH_MISSING : ErrorCode.VALIDATION;

/** The sandbox's hosted checkout page of a buy order: where its payer goes. */
export function checkoutUrl(publicUrl: string, payToken: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/pay/${payToken}`;
}

/** A fresh notification secret for a sandbox channel's config. */
export function newSandboxNotifySecret(): string {
  return 'ns_' + randomBytes(32).toString('base64url');
}

export interface SandboxDriverDeps {
  clock: Clock;
  publicUrl: PublicUrl;
  /** The channel's decrypted driver configuration. */
  config(row: ChannelRow): Record<string, string>;
}

export function createSandboxDriver({ clock, publicUrl, config }: SandboxDriverDeps) {
  const driver: ChannelDriver & {
    signNotification(order: OrderRow, channel: ChannelRow, event: ChannelEvent, reason: string): SandboxNotification;
  } = {
    name: 'sandbox',

    startPayIn(order) {
      return { payUrl: checkoutUrl(publicUrl(), order.pay_token!) };
    },

    async startPayout(order): Promise<PayoutStart> {
      return { accepted: true, reference: `SBX-${order.order_no}` };
    },

    async queryStatus(order): Promise<ChannelStatusReport> {
      if (order.order_type === 1 && order.status === 'paid') return { event: 'settled', reason: 'sandbox: funds settled' };
      if (order.order_type === 2 && order.status === 'confirmed') return { event: 'paid_out', reason: 'sandbox: paid out to the payee' };
      return { event: null, reason: `sandbox: nothing to report for a ${order.status} order` };
    },

    verifyNotification(channel, body: JsonObject): VerifiedNotification {
      const { order_no, event, amount, reason, timestamp, nonce, signature } = parseOrThrow(sandboxNotificationBody, body, 'body', codeOfIssue);
      checkTimestampFresh(timestamp, clock.now());
      const secret = config(channel)[SANDBOX_NOTIFY_SECRET_KEY];
      if (!secret || !verifySignature(body, signature, secret, 'hmac-sha256')) {
        throw new AppError(ErrorCode.AUTH_BAD_SIGNATURE, `signature: does not match (channel ${channel.id})`);
      }
      return { orderNo: order_no, event, amount, reason: reason ? reason : `channel reported ${event}`, nonce };
    },

    /**
     * What the sandbox channel sends when something happens to an order,
     * signed with the channel's notify secret (the channel service creates
     * it: ChannelService.ensureSandboxSecret).
     */
    signNotification(order, channel, event, reason): SandboxNotification {
      const secret = config(channel)[SANDBOX_NOTIFY_SECRET_KEY];
      if (!secret) throw new AppError(ErrorCode.CHANNEL_FAILURE, `channel ${channel.id}: the sandbox notify secret is missing`);
      const body = { order_no: order.order_no, event, amount: order.cny_amount, reason, timestamp: clock.now(), nonce: newNonce() };
      return { ...body, signature: computeSignature(body, secret, 'hmac-sha256') };
    },
  };
  return driver;
}
export type SandboxDriver = ReturnType<typeof createSandboxDriver>;
