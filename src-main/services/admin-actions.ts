/**
 * What staff change from the console or the CLI, each with its audit entry
 * (docs/accounts.md, "Audit trail") in the same unit of work: both
 * transports call these, so an action is recorded one way whoever does it.
 * The rules themselves stay in the services these call; what needs a second
 * person's approval is decided by the console (approval-service.ts) before
 * it gets here — the CLI is the machine's administrator and acts at once.
 * The merchant API's machine-to-machine writes are not staff actions and are
 * not audited here.
 */
import { formatFen } from '../../src-shared/money';
import type { ListenerSettingsInput } from '../../src-shared/schemas/console';
import type { BalanceAdjustInput } from '../../src-shared/schemas/money';
import type { ChannelCreateInput, ChannelLinkInput, ChannelUpdateInput, MerchantCreateInput, MerchantUpdateInput, PaymentMethodAddInput } from '../../src-shared/schemas/operator';
import type { SandboxAction } from './sandbox-service';
import type { CallbackSettings } from './settings-service';
import type { OrderRow } from '../repositories/order-repository';
import type { WriteTx } from '../store/store';
import type { AuditActor, AuditService } from './audit-service';
import type { CallbackService } from './callback-service';
import type { ChannelService } from './channel-service';
import type { MerchantService } from './merchant-service';
import type { OrderAdminService } from './order-admin-service';
import type { OrderLifecycleService } from './order-lifecycle-service';
import type { PaymentMethodService } from './payment-method-service';
import type { SandboxService } from './sandbox-service';
import type { SettingsService } from './settings-service';

export interface AdminActionsDeps {
  audit: AuditService;
  merchants: MerchantService;
  channels: ChannelService;
  paymentMethods: PaymentMethodService;
  orderAdmin: OrderAdminService;
  lifecycle: OrderLifecycleService;
  callbacks: CallbackService;
  sandbox: SandboxService;
  settings: SettingsService;
}

const merchantTarget = (id: number) => `merchant #${id}`;
const channelTarget = (id: number) => `channel #${id}`;

export function createAdminActions(deps: AdminActionsDeps) {
  const { audit, merchants, channels, paymentMethods } = deps;

  return {
    async createMerchant(tx: WriteTx, actor: AuditActor, input: MerchantCreateInput) {
      const created = await merchants.create(tx, input);
      await audit.record(tx, actor, { action: 'merchant.create', target: merchantTarget(created.id), merchantId: created.id, after: created });
      return created;
    },

    async updateMerchant(tx: WriteTx, actor: AuditActor, input: MerchantUpdateInput) {
      const before = await merchants.get(tx, input.id);
      const after = await merchants.update(tx, input);
      await audit.record(tx, actor, { action: 'merchant.update', target: merchantTarget(input.id), merchantId: input.id, before, after });
      return after;
    },

    async setMerchantLimits(tx: WriteTx, actor: AuditActor, id: number, limits: { console?: number | undefined; api?: number | null | undefined }) {
      const before = await merchants.get(tx, id);
      const after = await merchants.setLimits(tx, id, limits);
      const shown = (m: typeof before) => ({
        console_withdrawal_threshold: formatFen(m.console_withdrawal_threshold),
        api_withdrawal_threshold: m.api_withdrawal_threshold === null ? null : formatFen(m.api_withdrawal_threshold),
      });
      await audit.record(tx, actor, { action: 'merchant.limits', target: merchantTarget(id), merchantId: id, before: shown(before), after: shown(after) });
      return after;
    },

    /** The new secret is in the answer only; the audit trail records that it changed. */
    async rotateMerchantSecret(tx: WriteTx, actor: AuditActor, id: number) {
      const rotated = await merchants.rotateSecret(tx, id);
      await audit.record(tx, actor, { action: 'merchant.rotate_secret', target: merchantTarget(id), merchantId: id, after: { api_key: rotated.api_key, api_secret: 'new' } });
      return rotated;
    },

    async createChannel(tx: WriteTx, actor: AuditActor, input: ChannelCreateInput) {
      const created = await channels.create(tx, input);
      await audit.record(tx, actor, { action: 'channel.create', target: channelTarget(created.id), after: created });
      return created;
    },

    /** A change that includes `config` is a credentials change, recorded as such (values never). */
    async updateChannel(tx: WriteTx, actor: AuditActor, input: ChannelUpdateInput) {
      const before = await channels.get(tx, input.id);
      const after = await channels.update(tx, input);
      const action = input.config !== undefined ? 'channel.credentials' : 'channel.update';
      await audit.record(tx, actor, { action, target: channelTarget(input.id), before, after });
      return after;
    },

    async linkChannel(tx: WriteTx, actor: AuditActor, input: ChannelLinkInput) {
      const link = await channels.link(tx, input);
      await audit.record(tx, actor, { action: 'channel.link', target: channelTarget(input.channel_id), merchantId: input.merchant_id, after: link });
      return link;
    },

    async unlinkChannel(tx: WriteTx, actor: AuditActor, merchantId: number, channelId: number) {
      await channels.unlink(tx, merchantId, channelId);
      await audit.record(tx, actor, { action: 'channel.unlink', target: channelTarget(channelId), merchantId, before: { merchant_id: merchantId, channel_id: channelId } });
    },

    async addPaymentMethod(tx: WriteTx, actor: AuditActor, input: PaymentMethodAddInput) {
      const added = await paymentMethods.add(tx, input);
      await audit.record(tx, actor, { action: 'payment_method.add', target: `payment method #${added.id}`, merchantId: added.merchant_id, after: added });
      return added;
    },

    async setPaymentMethodEnabled(tx: WriteTx, actor: AuditActor, id: number, enabled: boolean) {
      const after = await paymentMethods.setEnabled(tx, id, enabled);
      await audit.record(tx, actor, {
        action: enabled ? 'payment_method.enable' : 'payment_method.disable',
        target: `payment method #${id}`,
        merchantId: after.merchant_id,
        before: { enabled: !enabled },
        after: { enabled },
      });
      return after;
    },

    async adjustBalance(tx: WriteTx, actor: AuditActor, input: BalanceAdjustInput) {
      const before = await deps.orderAdmin.balances(tx, input.merchant_id);
      const done = await deps.orderAdmin.adjust(tx, input);
      await audit.record(tx, actor, {
        action: 'balance.adjust',
        target: merchantTarget(input.merchant_id),
        merchantId: input.merchant_id,
        before: { available: formatFen(before.available) },
        after: { available: formatFen(done.balances.available), amount: formatFen(done.amount), reason: done.reason, transaction_id: done.transaction_id },
      });
      return done;
    },

    /** An order created by staff (console buy, or a withdrawal done at once or on approval). */
    async recordOrderCreated(tx: WriteTx, actor: AuditActor, order: OrderRow, via: 'order.create' | 'order.withdraw') {
      await audit.record(tx, actor, {
        action: via,
        target: `order ${order.order_no}`,
        merchantId: order.merchant_id,
        after: { order_no: order.order_no, order_type: order.order_type, cny_amount: formatFen(order.cny_amount), merchant_actual_amount: formatFen(order.merchant_actual_amount), status: order.status },
      });
    },

    async cancelOrder(tx: WriteTx, actor: AuditActor, order: OrderRow, reason: string) {
      await deps.lifecycle.cancelByOperator(tx, order, reason);
      await audit.record(tx, actor, { action: 'order.cancel', target: `order ${order.order_no}`, merchantId: order.merchant_id, before: { status: order.status }, after: { status: 'cancelled', reason } });
    },

    async resendCallback(tx: WriteTx, actor: AuditActor, order: OrderRow) {
      const delivery = await deps.callbacks.resend(tx, order.order_no);
      await audit.record(tx, actor, { action: 'callback.resend', target: `order ${order.order_no}`, merchantId: order.merchant_id, after: { status: order.status } });
      return delivery;
    },

    async simulateOrderOutcome(tx: WriteTx, actor: AuditActor, order: OrderRow, action: SandboxAction, reason: string) {
      const result = await deps.sandbox.simulate(tx, order.order_no, action, reason);
      await audit.record(tx, actor, { action: `sandbox.${action}`, target: `order ${order.order_no}`, merchantId: order.merchant_id, before: { status: order.status }, after: { reason } });
      return result;
    },

    async updateListenerSettings(tx: WriteTx, actor: AuditActor, input: ListenerSettingsInput) {
      const before = await deps.settings.listener(tx);
      const after = await deps.settings.updateListener(tx, input);
      await audit.record(tx, actor, { action: 'settings.listener', target: 'listener', before, after });
      return after;
    },

    async updateCallbackSettings(tx: WriteTx, actor: AuditActor, input: CallbackSettings) {
      const before = await deps.settings.callbacks(tx);
      const after = await deps.settings.updateCallbacks(tx, input);
      await audit.record(tx, actor, { action: 'settings.callbacks', target: 'callback policy', before, after });
      return after;
    },
  };
}
export type AdminActions = ReturnType<typeof createAdminActions>;
