/**
 * The kinds of request that wait for a second person (docs/accounts.md,
 * "Two-person approval"): for each, what the request shows (its draft:
 * exactly what will change, amounts with fees, before and after) and what an
 * approval does. The approval service files, holds, decides and expires;
 * what a kind means lives here, once.
 */
import type { Role } from '../../src-shared/auth/permissions';
import { AppError, ErrorCode } from '../../src-shared/errors';
import { formatFen, parseSignedYuan } from '../../src-shared/money';
import type { CreateSellOrderInput } from '../../src-shared/schemas/merchant-api';
import type { ChannelAdminView, MerchantView } from '../../src-shared/schemas/operator';
import type { SecretBox } from '../crypto/secret-box';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { ReadTx } from '../store/store';
import type { AccountService } from './account-service';
import type { AdminActions } from './admin-actions';
import type { ApprovalDraft, ApprovalExecutors } from './approval-service';
import type { AuditService } from './audit-service';
import type { OrderService } from './order-service';

export interface ApprovalKindDeps {
  secretBox: SecretBox;
  merchants: MerchantRepository;
  orders: OrderService;
  accounts: AccountService;
  adminActions: AdminActions;
  audit: AuditService;
}

interface WithdrawalPayload {
  merchant_id: number;
  input: CreateSellOrderInput;
  /** What the request showed would be taken from the balance (fen): the order must take exactly this. */
  expected_amount: number;
}

/** A balance adjustment as the request shows it. */
export function adjustmentDraft(merchant: MerchantView, available: number, input: { amount: string; reason: string }): ApprovalDraft {
  const parsed = parseSignedYuan(input.amount);
  if (!parsed.ok) throw new AppError(ErrorCode.VALIDATION, `amount: ${parsed.rule}`);
  return {
    kind: 'balance_adjustment',
    merchantId: merchant.id,
    payload: { merchant_id: merchant.id, amount: input.amount, reason: input.reason },
    title: `Balance adjustment of ${formatFen(parsed.fen)} CNY for ${merchant.name}`,
    titleParams: { amount: formatFen(parsed.fen), merchant: merchant.name },
    changes: [
      { key: 'adjustment', label: 'adjustment', before: null, after: formatFen(parsed.fen) },
      { key: 'reason', label: 'reason', before: null, after: input.reason },
      { key: 'available_balance', label: 'available balance', before: formatFen(available), after: formatFen(available + parsed.fen) },
    ],
  };
}

/** A withdrawal (sell order) as the request shows it: amounts with fees; its sum is held while it waits. */
export async function withdrawalDraft(tx: ReadTx, orders: OrderService, merchant: MerchantView, input: CreateSellOrderInput, available: number): Promise<ApprovalDraft> {
  const { channel, f } = await orders.quoteSell(tx, merchant.id, input);
  const taken = f.merchant_actual_amount;
  return {
    kind: 'withdrawal',
    merchantId: merchant.id,
    payload: { merchant_id: merchant.id, input, expected_amount: taken } satisfies WithdrawalPayload,
    title: `Withdrawal of ${formatFen(input.cny_amount)} CNY for ${merchant.name} (sell order on ${channel.name})`,
    titleParams: { amount: formatFen(input.cny_amount), merchant: merchant.name, channel: channel.name },
    changes: [
      { key: 'amount_paid_out', label: 'amount paid out', before: null, after: formatFen(input.cny_amount) },
      { key: 'service_fee', label: 'service fee', before: null, after: formatFen(f.service_amount) },
      { key: 'passage_fee', label: 'passage fee', before: null, after: formatFen(f.passage_amount) },
      { key: 'deposit', label: 'deposit', before: null, after: formatFen(f.deposit_amount) },
      { key: 'taken_from_available', label: 'taken from available', before: null, after: formatFen(taken) },
      { key: 'available_balance', label: 'available balance', before: formatFen(available), after: formatFen(available - taken) },
    ],
    hold: taken,
  };
}

export function secretRotationDraft(merchant: MerchantView): ApprovalDraft {
  return {
    kind: 'secret_rotation',
    merchantId: merchant.id,
    payload: { merchant_id: merchant.id },
    title: `New API secret for ${merchant.name} (${merchant.api_key})`,
    titleParams: { merchant: merchant.name, api_key: merchant.api_key },
    // The values say which secret, never the secret: `current` stops working at once, `new` is shown once to the requester.
    changes: [{ key: 'api_secret', label: 'api_secret', before: 'current', after: 'new' }],
  };
}

export function channelCredentialsDraft(channel: ChannelAdminView, config: Record<string, string>): ApprovalDraft {
  const keys = (o: Record<string, unknown>) => Object.keys(o).sort().join(', ') || '(none)';
  return {
    kind: 'channel_credentials',
    merchantId: null,
    payload: { id: channel.id, config },
    title: `New credentials for channel ${channel.name} (#${channel.id})`,
    titleParams: { channel: channel.name, channel_id: String(channel.id) },
    changes: [{ key: 'credential_keys', label: 'credential keys (values hidden)', before: keys(channel.config_masked), after: keys(config) }],
  };
}

export function roleChangeDraft(account: { id: number; login: string; display_name: string; role: Role }, role: Role): ApprovalDraft {
  return {
    kind: 'account_role',
    merchantId: null,
    payload: { id: account.id, role },
    title: `Role of ${account.display_name} (${account.login}): ${account.role} → ${role}`,
    titleParams: { account: account.display_name, login: account.login, from_role: account.role, to_role: role },
    changes: [{ key: 'role', label: 'role', before: account.role, after: role }],
  };
}

export function createApprovalExecutors(deps: ApprovalKindDeps): ApprovalExecutors {
  return {
    async balance_adjustment(tx, payload, actor) {
      const p = payload as { merchant_id: number; amount: string; reason: string };
      const done = await deps.adminActions.adjustBalance(tx, actor, { merchant_id: p.merchant_id, amount: p.amount, reason: p.reason });
      return { outcome: `ledger transaction #${done.transaction_id} booked`, result: { transaction_id: done.transaction_id } };
    },

    async withdrawal(tx, payload, actor) {
      const p = payload as unknown as WithdrawalPayload;
      const merchant = await deps.merchants.findById(tx, p.merchant_id);
      if (!merchant || merchant.enabled !== 1) throw new AppError(ErrorCode.CONFLICT, `merchant ${p.merchant_id} is disabled`);
      // The order must take what the request showed: fees changed meanwhile → ask again.
      const { f } = await deps.orders.quoteSell(tx, p.merchant_id, p.input);
      if (f.merchant_actual_amount !== p.expected_amount) {
        throw new AppError(
          ErrorCode.CONFLICT,
          `the channel's fees changed: it would now take ${formatFen(f.merchant_actual_amount)} instead of ${formatFen(p.expected_amount)}; request it again`,
        );
      }
      const order = await deps.orders.createSell(tx, p.merchant_id, p.input);
      await deps.adminActions.recordOrderCreated(tx, actor, order, 'order.withdraw');
      return { outcome: `sell order ${order.order_no} created`, result: { order_no: order.order_no }, order };
    },

    async secret_rotation(tx, payload, actor) {
      const p = payload as { merchant_id: number };
      const rotated = await deps.adminActions.rotateMerchantSecret(tx, actor, p.merchant_id);
      // Kept sealed for the requester's one look (approval-service revealSecret), then removed.
      return { outcome: 'API secret replaced; the requester can see the new one once', result: { secret_enc: deps.secretBox.seal(rotated.api_secret) } };
    },

    async channel_credentials(tx, payload, actor) {
      const p = payload as { id: number; config: Record<string, string> };
      await deps.adminActions.updateChannel(tx, actor, { id: p.id, config: p.config });
      return { outcome: 'channel credentials replaced', result: {} };
    },

    async account_role(tx, payload, actor) {
      const p = payload as { id: number; role: Role };
      const before = await deps.accounts.view(tx, await deps.accounts.require(tx, p.id));
      const after = await deps.accounts.setRole(tx, p.id, p.role);
      await deps.audit.record(tx, actor, { action: 'account.role', target: `account ${after.login}`, before: { role: before.role }, after: { role: after.role } });
      return { outcome: `${after.login} is now ${after.role}`, result: {} };
    },
  };
}
