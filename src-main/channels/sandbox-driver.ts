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
import { computeSignature, verifySignature } from '../../src-shared/client/sign';
import { TIMESTAMP_TOLERANCE_SECONDS } from '../../src-shared/constants';
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { JsonObject } from '../../src-shared/json/lossless-json';
import { newNonce } from '../../src-shared/client/merchant-client';
import type { ChannelRow } from '../repositories/channel-repository';
import type { OrderRow } from '../repositories/order-repository';
import type { ServiceContext } from '../services/context';
import { payUrlOf } from '../services/order-service';
import { writeTransaction } from '../store/transaction';
import { isChannelEvent, type ChannelEvent } from './channel-events';
import type { ChannelDriver, ChannelStatusReport, PayoutStart, VerifiedNotification } from './channel-driver';

export const SANDBOX_NOTIFY_SECRET_KEY = 'notify_secret';
const NOTIFICATION_FIELDS = ['order_no', 'event', 'amount', 'reason', 'timestamp', 'nonce', 'signature'] as const;

/** The JSON body the sandbox channel POSTs to /channel/notify/<channel_id>. */
export type SandboxNotification = {
  order_no: string;
  event: ChannelEvent;
  amount: number;
  reason: string;
  timestamp: number;
  nonce: string;
  signature: string;
};

function invalid(field: string, rule: string): AppError {
  return new AppError(ErrorCode.VALIDATION, `${field}: ${rule}`);
}

export function createSandboxDriver(ctx: ServiceContext, config: (row: ChannelRow) => Record<string, string>) {
  const { repos, clock, secretBox, db } = ctx;

  /** The channel's notification secret, created (and stored encrypted) on first use. */
  function notifySecret(channelId: number): string {
    const row = repos.channels.findById(channelId)!;
    const existing = config(row)[SANDBOX_NOTIFY_SECRET_KEY];
    if (existing) return existing;
    return writeTransaction(db, () => {
      const fresh = repos.channels.findById(channelId)!;
      const cfg = config(fresh);
      if (cfg[SANDBOX_NOTIFY_SECRET_KEY]) return cfg[SANDBOX_NOTIFY_SECRET_KEY];
      cfg[SANDBOX_NOTIFY_SECRET_KEY] = 'ns_' + randomBytes(32).toString('base64url');
      repos.channels.setConfig(channelId, secretBox.seal(JSON.stringify(cfg)));
      return cfg[SANDBOX_NOTIFY_SECRET_KEY];
    });
  }

  const driver: ChannelDriver & {
    notifySecret(channelId: number): string;
    signNotification(order: OrderRow, event: ChannelEvent, reason: string): SandboxNotification;
  } = {
    name: 'sandbox',

    startPayIn(order) {
      return { payUrl: payUrlOf(ctx.publicUrl(), order.pay_token!) };
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
      for (const name of Object.keys(body)) {
        if (!(NOTIFICATION_FIELDS as readonly string[]).includes(name)) throw invalid(name, 'unknown parameter');
      }
      const { order_no, event, amount, reason, timestamp, nonce, signature } = body;
      if (typeof order_no !== 'string' || order_no.length === 0 || order_no.length > 64) throw invalid('order_no', 'is required');
      if (!isChannelEvent(event)) throw invalid('event', 'must be one of paid, settled, payout_accepted, paid_out, failed');
      if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) throw invalid('amount', 'must be a positive integer of fen');
      if (reason !== undefined && (typeof reason !== 'string' || reason.length > 256)) throw invalid('reason', 'must be a string of at most 256 characters');
      if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp)) throw new AppError(ErrorCode.AUTH_MISSING, 'timestamp: is required');
      if (typeof nonce !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(nonce)) throw new AppError(ErrorCode.AUTH_MISSING, 'nonce: must be 8-64 characters of A-Z a-z 0-9 _ -');
      if (typeof signature !== 'string' || signature.length === 0) throw new AppError(ErrorCode.AUTH_MISSING, 'signature: is required');
      if (Math.abs(timestamp - clock.now()) > TIMESTAMP_TOLERANCE_SECONDS) {
        throw new AppError(ErrorCode.AUTH_STALE_TIMESTAMP, `timestamp: further than ${TIMESTAMP_TOLERANCE_SECONDS} s from server time ${clock.now()}`);
      }
      const secret = config(channel)[SANDBOX_NOTIFY_SECRET_KEY];
      if (!secret || !verifySignature(body, signature, secret, 'hmac-sha256')) {
        throw new AppError(ErrorCode.AUTH_BAD_SIGNATURE, `signature: does not match (channel ${channel.id})`);
      }
      return { orderNo: order_no, event, amount, reason: typeof reason === 'string' && reason ? reason : `channel reported ${event}`, nonce };
    },

    notifySecret,

    /** What the sandbox channel sends when something happens to an order. */
    signNotification(order, event, reason): SandboxNotification {
      const body = { order_no: order.order_no, event, amount: order.cny_amount, reason, timestamp: clock.now(), nonce: newNonce() };
      return { ...body, signature: computeSignature(body, notifySecret(order.channel_id), 'hmac-sha256') };
    },
  };
  return driver;
}
export type SandboxDriver = ReturnType<typeof createSandboxDriver>;
