/** `callback list ORDER_NO`, `callback resend ORDER_NO`, `callback policy` (docs/callbacks.md). */
import { CLI_ACTOR } from '../../services/audit-service';
import type { CallbackDeliveryView } from '../../../src-shared/schemas/money';
import type { CallbackSettings } from '../../services/settings-service';
import { defineCommand, withService, type CommandDef } from '../command';
import { optionalBoolean } from './admin-commands';
import { orderNoArgument } from './money-commands';
import { runningServiceUrl } from './sandbox-commands';

function time(t: number): string {
  return new Date(t * 1000).toISOString().replace('.000Z', 'Z');
}

export function deliveriesText(list: CallbackDeliveryView[]): string {
  if (list.length === 0) return '(no callbacks for this order)';
  const lines: string[] = [];
  for (const d of list) {
    const next = d.next_attempt_at !== null ? `, next attempt ${time(d.next_attempt_at)}` : '';
    lines.push(`#${d.id} ${d.order_status} (${d.trigger}) → ${d.url || '(no callback_url)'}: ${d.state}, ${d.attempts} attempt(s)${next}`);
    for (const a of d.attempt_log) {
      const answer = a.http_status !== null ? `HTTP ${a.http_status}` : `no answer (${a.error})`;
      const excerpt = a.response_excerpt ? ` ${JSON.stringify(a.response_excerpt.slice(0, 80))}` : '';
      lines.push(`    ${a.attempt}. ${time(a.time)} ${answer} in ${a.latency_ms} ms${excerpt}${a.acknowledged ? ' — acknowledged' : ''}`);
    }
  }
  return lines.join('\n');
}

export const callbackCommands: CommandDef[] = [
  defineCommand({
    name: 'callback list',
    summary: "an order's merchant callbacks with every attempt (time, HTTP status, latency, answer)",
    usage: 'callback list ORDER_NO',
    positionals: 1,
    run: (args) =>
      withService(args, (s) => {
        const orderNo = orderNoArgument(args.positionals[0]);
        return s.store.read((tx) => s.services.callbacks.listForOrder(tx, orderNo));
      }),
    human: deliveriesText,
  }),
  defineCommand({
    name: 'callback resend',
    summary: "queue the order's current status as a new callback (sent by the running service, or now when none runs)",
    usage: 'callback resend ORDER_NO',
    positionals: 1,
    run: (args) =>
      withService(args, async (s) => {
        const orderNo = orderNoArgument(args.positionals[0]);
        const queued = await s.store.write(async (tx) => s.services.adminActions.resendCallback(tx, CLI_ACTOR, await s.services.orders.requireByNo(tx, orderNo)));
        const target = runningServiceUrl(args);
        if ('lock' in target) {
          try {
            const order = await s.store.read((tx) => s.services.sandbox.requireOrder(tx, orderNo));
            if (!args.databaseUrl) await s.work.releaseClaimsOfOthers();
            await s.work.runDue({ callbacksOfOrder: order.id });
          } finally {
            target.lock.release();
          }
        }
        const list = await s.store.read((tx) => s.services.callbacks.listForOrder(tx, orderNo));
        return { queued: list.find((d) => d.id === queued.id)!, sent_by: 'lock' in target ? 'this command' : `the running service at ${target.url}` };
      }),
    human: (r: { queued: CallbackDeliveryView; sent_by: string }) => `queued callback #${r.queued.id}, sent by ${r.sent_by}\n${deliveriesText([r.queued])}`,
  }),
  defineCommand({
    name: 'callback policy',
    summary: 'show, allow or refuse callbacks to loopback and private addresses (in-house receivers); applies at once',
    usage:
      'callback policy [--allow-private | --refuse-private]\n' +
      '  link-local addresses (169.254.x.x, fe80::), user:password in the URL and this service itself are always refused',
    options: { 'allow-private': { type: 'boolean' }, 'refuse-private': { type: 'boolean' } },
    positionals: 0,
    run: (args) =>
      withService(args, (s) => {
        const allow = optionalBoolean(args, 'allow-private', 'refuse-private');
        return allow === undefined
          ? s.store.read((tx) => s.services.settings.callbacks(tx))
          : s.store.write((tx) => s.services.adminActions.updateCallbackSettings(tx, CLI_ACTOR, { allow_private: allow }));
      }),
    human: (r: CallbackSettings) => `callbacks to loopback and private addresses: ${r.allow_private ? 'allowed' : 'refused'}`,
  }),
];
