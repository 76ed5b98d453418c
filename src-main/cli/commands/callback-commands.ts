/** `callback list ORDER_NO`, `callback resend ORDER_NO` (docs/callbacks.md). */
import type { CallbackDeliveryView } from '../../../src-shared/schemas/money';
import { defineCommand, withService, type CommandDef } from '../command';
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
    run: (args) => withService(args, (s) => s.services.callbacks.listForOrder(orderNoArgument(args.positionals[0]))),
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
        const queued = s.services.callbacks.resend(orderNo);
        const target = runningServiceUrl(args.dataDir);
        if ('lock' in target) {
          try {
            await s.work.runDue({ callbacksOfOrder: s.services.sandbox.requireOrder(orderNo).id });
          } finally {
            target.lock.release();
          }
        }
        const list = s.services.callbacks.listForOrder(orderNo);
        return { queued: list.find((d) => d.id === queued.id)!, sent_by: 'lock' in target ? 'this command' : `the running service at ${target.url}` };
      }),
    human: (r: { queued: CallbackDeliveryView; sent_by: string }) => `queued callback #${r.queued.id}, sent by ${r.sent_by}\n${deliveriesText([r.queued])}`,
  }),
];
