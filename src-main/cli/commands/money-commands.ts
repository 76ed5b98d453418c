/** Balances, adjustments and order inspection (issue 3). */
import { CLI_ACTOR } from '../../services/audit-service';
import { formatFen } from '../../../src-shared/money';
import { statusLabel } from '../../../src-shared/order-state-machine';
import type { FeeBreakdownItem, OrderDetailView } from '../../../src-shared/schemas/console';
import { balanceAdjustInput, type BalanceAdjustView, type BalanceView } from '../../../src-shared/schemas/money';
import { parseOrThrow } from '../../../src-shared/validation/parse';
import { defineCommand, idArgument, requiredOption, UsageError, withService, type CommandDef } from '../command';

function balanceText(b: BalanceView): string {
  return `available ${formatFen(b.available)}  frozen ${formatFen(b.frozen)}  deposit ${formatFen(b.deposit)}  (CNY)`;
}

function time(t: number): string {
  return new Date(t * 1000).toISOString().replace('.000Z', 'Z');
}

function orderNoArgument(value: string | undefined): string {
  if (value === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(value)) throw new UsageError('ORDER_NO must be an order number');
  return value;
}

const FEE_NAMES: Record<FeeBreakdownItem['item'], string> = { service: 'service', passage: 'passage', deposit: 'deposit', channel: 'channel commission' };

function feeText(f: FeeBreakdownItem): string {
  const rate = f.rate_unit === 'basis_points' ? `${f.rate} bp` : f.rate;
  return `${FEE_NAMES[f.item]} ${formatFen(f.amount)} (${rate}${f.effect === 'informational' ? ', not charged' : ''})`;
}

/** The order detail (the console's read model of an order) as text. */
export function orderDetailText(d: OrderDetailView): string {
  const lines = [
    `order ${d.order_no} (${d.order_type === 1 ? 'buy' : 'sell'}): ${d.status} — ${statusLabel(d.order_type, d.status)}`,
    `  merchant ${d.merchant.id} ${d.merchant.name}; channel ${d.channel.id} ${d.channel.name} (${d.channel.category}, ${d.channel.driver}); ${d.payment_method}`,
    `  amount ${d.cny_amount}; ${d.fees.items.map(feeText).join('; ')}; merchant actual ${formatFen(d.fees.merchant_actual_amount)}`,
    `    ${d.fees.formula}`,
    `  created ${time(d.createtime)}, updated ${time(d.updatetime)}${d.expires_at ? `, expires ${time(d.expires_at)}` : ''}`,
  ];
  if (d.pay_url) lines.push(`  pay_url ${d.pay_url}`);
  lines.push('  timeline:');
  lines.push(`    ${time(d.createtime)}  created → pending`);
  for (const t of d.timeline) lines.push(`    ${time(t.time)}  ${t.from} → ${t.to}  [${t.source}] ${t.reason}`);
  if (d.ledger.length > 0) {
    lines.push('  ledger:');
    for (const tx of d.ledger) {
      lines.push(`    #${tx.id} ${tx.kind}: ${tx.entries.map((e) => `${e.account} ${e.amount > 0 ? '+' : ''}${formatFen(e.amount)}`).join(', ')}`);
    }
  }
  if (d.scheduled.length > 0) {
    lines.push('  scheduled:');
    for (const j of d.scheduled) lines.push(`    ${j.kind} at ${time(j.due_at)}${j.attempts ? ` (attempt ${j.attempts + 1}; last error: ${j.last_error})` : ''}`);
  }
  if (d.callbacks.length > 0) {
    lines.push('  callbacks:');
    for (const c of d.callbacks) {
      lines.push(`    #${c.id} ${c.order_status}: ${c.state}, ${c.attempts} attempt(s)${c.next_attempt_at ? `, next ${time(c.next_attempt_at)}` : ''}`);
    }
  }
  return lines.join('\n');
}

export const moneyCommands: CommandDef[] = [
  defineCommand({
    name: 'balance show',
    summary: "a merchant's balances {available, frozen, deposit} in yuan (with --json: in fen)",
    usage: 'balance show MERCHANT_ID',
    positionals: 1,
    run: (args) =>
      withService(args, (s) => {
        const merchantId = idArgument(args.positionals[0], 'MERCHANT_ID');
        return s.store.read((tx) => s.services.orderAdmin.balances(tx, merchantId));
      }),
    human: balanceText,
  }),
  defineCommand({
    name: 'balance adjust',
    summary: "operator adjustment of a merchant's available balance (a ledger transaction with its reason)",
    usage: 'balance adjust --merchant ID --amount ±YUAN --reason TEXT',
    options: { merchant: { type: 'string' }, amount: { type: 'string' }, reason: { type: 'string' } },
    positionals: 0,
    run: (args) =>
      withService(args, (s) => {
        const input = parseOrThrow(
          balanceAdjustInput,
          {
            merchant_id: idArgument(requiredOption(args, 'merchant'), '--merchant'),
            amount: requiredOption(args, 'amount'),
            reason: requiredOption(args, 'reason'),
          },
          'options',
        );
        return s.store.write((tx) => s.services.adminActions.adjustBalance(tx, CLI_ACTOR, input));
      }),
    human: (r: BalanceAdjustView) =>
      `merchant ${r.merchant_id}: ${r.amount > 0 ? '+' : ''}${formatFen(r.amount)} (ledger transaction ${r.transaction_id}); now ${balanceText(r.balances)}`,
  }),
  defineCommand({
    name: 'order show',
    summary: 'an order with its fee breakdown, status timeline, ledger movements, scheduled work and callbacks',
    usage: 'order show ORDER_NO',
    positionals: 1,
    run: (args) =>
      withService(args, (s) => {
        const orderNo = orderNoArgument(args.positionals[0]);
        return s.store.read((tx) => s.services.orderAdmin.detail(tx, orderNo));
      }),
    human: orderDetailText,
  }),
  defineCommand({
    name: 'order cancel',
    summary: 'cancel a pending order (or a confirmed sell) as operator; reserved funds are released',
    usage: 'order cancel ORDER_NO --reason TEXT',
    options: { reason: { type: 'string' } },
    positionals: 1,
    run: (args) =>
      withService(args, (s) => {
        const orderNo = orderNoArgument(args.positionals[0]);
        const reason = requiredOption(args, 'reason');
        return s.store.write(async (tx) => {
          await s.services.adminActions.cancelOrder(tx, CLI_ACTOR, await s.services.orderAdmin.requireOrder(tx, orderNo), reason);
          return s.services.orderAdmin.detail(tx, orderNo);
        });
      }),
    human: orderDetailText,
  }),
];

export { orderNoArgument };
