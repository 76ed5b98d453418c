/**
 * The sandbox channel's hosted checkout (docs/order-lifecycle.md):
 *   GET  /pay/<token>       the page (merchant, amount, pay method, QR code, Pay/Fail)
 *   POST /pay/<token>/pay   the sandbox channel "takes the payment" and notifies the service
 *   POST /pay/<token>/fail  the payment fails and the sandbox notifies the service
 * The POST handlers play the channel's backend: they sign a notification and
 * POST it over HTTP to this listener's /channel/notify/<channel_id>, exactly
 * as an external channel would, then send the browser back to the page.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../../src-shared/errors';
import type { OrderRow } from '../../repositories/order-repository';
import type { MerchantConsoleService } from '../../service';
import { payUrlOf } from '../../services/order-service';
import { CHECKOUT_HEADERS, checkoutStateOf, renderCheckoutPage, renderMissingPage } from '../checkout-page';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** http://<address the browser reached>:<port>, reachable from this process too. */
export function localBaseUrl(request: FastifyRequest): string {
  const address = request.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${request.socket.localPort}`;
}

export function registerCheckoutRoutes(app: FastifyInstance, service: MerchantConsoleService): void {
  const { repos, clock } = service.ctx;

  function orderOf(token: string): OrderRow | undefined {
    return TOKEN_PATTERN.test(token) ? repos.orders.findByPayToken(token) : undefined;
  }

  async function sendPage(reply: FastifyReply, order: OrderRow, problem?: string): Promise<FastifyReply> {
    const merchant = repos.merchants.findById(order.merchant_id)!;
    const expired = order.expires_at !== null && order.expires_at <= clock.now();
    const lastCancel = order.status === 'cancelled' ? (repos.lifecycle.transitionsOf(order.id).at(-1)?.source ?? null) : null;
    const html = await renderCheckoutPage({
      token: order.pay_token!,
      pageUrl: payUrlOf(service.ctx.publicUrl(), order.pay_token!),
      merchantName: merchant.name,
      orderNo: order.order_no,
      amountFen: order.cny_amount,
      payMethod: order.pay_method,
      state: checkoutStateOf(order.status, expired, lastCancel),
      expiresAt: order.expires_at,
      problem,
    });
    return reply.status(problem ? 409 : 200).headers(CHECKOUT_HEADERS).send(html);
  }

  function notFound(reply: FastifyReply): FastifyReply {
    return reply.status(404).headers(CHECKOUT_HEADERS).send(renderMissingPage());
  }

  // Own scope: the buttons post an (empty) HTML form, a body type only these routes accept.
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    scope.get<{ Params: { token: string } }>('/pay/:token', async (request, reply) => {
      const order = orderOf(request.params.token);
      return order ? sendPage(reply, order) : notFound(reply);
    });

    for (const action of ['pay', 'fail'] as const) {
      scope.post<{ Params: { token: string } }>(`/pay/:token/${action}`, async (request, reply) => {
        const order = orderOf(request.params.token);
        if (!order) return notFound(reply);
        const payable = order.status === 'pending' && (order.expires_at === null || order.expires_at > clock.now());
        // Anything but a payable order: the page says why.
        if (!payable) return reply.status(303).header('location', `../${order.pay_token}`).send();
        try {
          const { sandbox } = service.services;
          const reason = action === 'pay' ? 'sandbox checkout: payer paid' : 'sandbox checkout: payment failed';
          await sandbox.deliverOverHttp(localBaseUrl(request), sandbox.notificationFor(order, action, reason));
        } catch (err) {
          request.log.warn({ err }, 'sandbox checkout: the notification was not accepted');
          return sendPage(reply, repos.orders.findById(order.id)!, isAppError(err) ? `The channel could not report this: ${err.message}` : 'The channel could not reach the service; try again.');
        }
        return reply.status(303).header('location', `../${order.pay_token}`).send();
      });
    }
  });
}
