/**
 * `order pay|complete|fail ORDER_NO`: sandbox outcomes from the command
 * line. The sandbox channel signs a notification; when a service runs on the
 * data dir it is POSTed to that service's listener (/channel/notify/<id>,
 * the address recorded in service.json), exactly as the checkout page's
 * buttons do. When none runs, the CLI holds the data-dir lock for the moment,
 * hands the notification to the same verifying receiver in-process and runs
 * the work that falls due (settlement with no delay, payouts, and this
 * order's callbacks).
 */
import { CLI_ACTOR } from '../../services/audit-service';
import { statusLabel } from '../../../src-shared/order-state-machine';
import type { OrderStatus } from '../../../src-shared/constants';
import { acquireDataDirLock, DataDirLockedError } from '../../store/data-dir';
import type { MerchantConsoleService } from '../../service';
import type { SandboxAction } from '../../services/sandbox-service';
import { defineCommand, stringOption, UsageError, withService, type CommandArgs, type CommandDef } from '../command';
import { orderNoArgument } from './money-commands';

export interface SandboxCommandResult {
  order_no: string;
  order_type: 1 | 2;
  action: SandboxAction;
  event: string;
  /** False when the order already reflected this outcome. */
  changed: boolean;
  /** Status right after the notification was applied. */
  status: OrderStatus;
  /** 'listener' (POSTed to the running service) or 'in-process' (no service was running). */
  delivered: 'listener' | 'in-process';
  listener_url: string | null;
  /** Status after the work that fell due ran (in-process only; the running service does it on its own). */
  status_after_due_work: OrderStatus | null;
}

/**
 * Where a running service on this data dir listens: its URL, or the data
 * dir's lock (ours now) when none runs. On PostgreSQL there is no such lock:
 * this command acts in-process, next to whatever instances run (they claim
 * work in the store, so nothing runs twice).
 */
export function runningServiceUrl(args: CommandArgs): { url: string } | { lock: { release(): void } } {
  if (args.databaseUrl) return { lock: { release: () => undefined } };
  const dataDir = args.dataDir;
  try {
    return { lock: acquireDataDirLock(dataDir) };
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    if (!err.holder?.url) throw new UsageError(`a merchant-console service (pid ${err.holder?.pid ?? '?'}) is starting on this data dir; try again in a moment`);
    return { url: err.holder.url };
  }
}

async function runSandboxAction(s: MerchantConsoleService, args: CommandArgs, action: SandboxAction): Promise<SandboxCommandResult> {
  const orderNo = orderNoArgument(args.positionals[0]);
  const reason = stringOption(args, 'reason') ?? `sandbox: ${action} (command line)`;
  const { sandbox } = s.services;
  const { order, delivery } = await s.store.write(async (tx) => {
    const o = await sandbox.requireOrder(tx, orderNo);
    // The outcome itself travels as the channel's signed notification; that the administrator asked for it is audited here.
    await s.services.audit.record(tx, CLI_ACTOR, { action: `sandbox.${action}`, target: `order ${o.order_no}`, merchantId: o.merchant_id, before: { status: o.status }, after: { reason } });
    return { order: o, delivery: await sandbox.notificationFor(tx, o, action, reason) };
  });
  const base = { order_no: orderNo, order_type: order.order_type, action, event: delivery.body.event };
  const target = runningServiceUrl(args);
  if ('url' in target) {
    const r = await s.services.sandbox.deliverOverHttp(target.url, delivery);
    return { ...base, changed: r.changed, status: r.status, delivered: 'listener', listener_url: target.url, status_after_due_work: null };
  }
  try {
    const r = await s.store.write((tx) => sandbox.deliverInProcess(tx, delivery));
    // Stand in for the absent service: due order work, and this order's callbacks (claims a dead one left, taken back).
    if (!args.databaseUrl) await s.work.releaseClaimsOfOthers();
    await s.work.runDue({ callbacksOfOrder: order.id });
    const after = (await s.store.read((tx) => sandbox.requireOrder(tx, orderNo))).status;
    return { ...base, changed: r.changed, status: r.status, delivered: 'in-process', listener_url: null, status_after_due_work: after };
  } finally {
    target.lock.release();
  }
}

function resultText(r: SandboxCommandResult): string {
  const how = r.delivered === 'listener' ? `notified the running service at ${r.listener_url}` : 'applied in-process (no service running)';
  const what = r.changed ? `order ${r.order_no} is now ${r.status}` : `order ${r.order_no} already reflected ${r.event} (${r.status}); nothing changed`;
  const after = r.status_after_due_work && r.status_after_due_work !== r.status ? `; then ${r.status_after_due_work} (${statusLabel(r.order_type, r.status_after_due_work)})` : '';
  return `sandbox ${r.event}: ${what}${after} — ${how}`;
}

function sandboxCommand(action: SandboxAction, summary: string): CommandDef {
  return defineCommand({
    name: `order ${action}`,
    summary,
    usage: `order ${action} ORDER_NO [--reason TEXT]`,
    options: { reason: { type: 'string' } },
    positionals: 1,
    run: (args) => withService(args, (s) => runSandboxAction(s, args, action)),
    human: resultText,
  });
}

export const sandboxCommands: CommandDef[] = [
  sandboxCommand('pay', 'sandbox: the payer pays a pending buy order (signed channel notification, like the checkout page)'),
  sandboxCommand('complete', 'sandbox: the channel settles a paid buy order or pays out a confirmed sell order now'),
  sandboxCommand('fail', 'sandbox: the channel reports failure; the order is cancelled (a sell releases its reserved funds)'),
];
