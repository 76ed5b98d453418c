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
import { z } from 'zod';
import { isAppError } from '../../../src-shared/errors';
import type { OrderRow } from '../../repositories/order-repository';
import type { MerchantConsoleService } from '../../service';
import { payUrlOf } from '../../services/order-service';
import type { ReadTx } from '../../store/store';
import { CHECKOUT_HEADERS, checkoutStateOf, renderCheckoutPage, renderMissingPage } from '../checkout-page';
import type { RouteDoc } from '../openapi/route-doc';

/** The Pay/Fail forms carry one hidden field: anything bigger is not from the page. */
const CHECKOUT_FORM_LIMIT_BYTES = 1024;
const payToken = z.string().regex(/^[A-Za-z0-9_-]{32}$/);
const tokenParam = { token: { description: 'The order\'s pay token (the last segment of its pay_url).', schema: payToken } };
const missingPage = { description: 'No payable order has this token: a page saying the link is not valid.', html: true } as const;

const pageDoc: RouteDoc = {
  tag: 'checkout',
  operationId: 'checkoutPage',
  summary: 'The hosted checkout page of a buy order',
  description: 'Merchant, amount, pay method, a QR code of the page and, while the order is payable, Pay and Fail buttons. No script; its own strict Content-Security-Policy.',
  params: tokenParam,
  responses: { 200: { description: 'The page.', html: true }, 404: missingPage },
};

function actionDoc(action: 'pay' | 'fail'): RouteDoc {
  return {
    tag: 'checkout',
    operationId: action === 'pay' ? 'checkoutPay' : 'checkoutFail',
    summary: action === 'pay' ? 'The payer pays (sandbox)' : 'The payment fails (sandbox)',
    description:
      'The sandbox channel signs a notification and POSTs it to this listener\'s /channel/notify/{channel_id}, as a real channel would, then sends the browser back to the page.',
    params: tokenParam,
    body: {
      schema: z.record(z.string(), z.string()),
      mediaType: 'application/x-www-form-urlencoded',
      description: 'The page\'s button posts `action=pay` or `action=fail`; the fields are not read.',
    },
    responses: {
      303: { description: 'Back to the page (`Location: ../<token>`), which shows the outcome.', empty: true, headers: { Location: { description: 'The page.' } } },
      404: missingPage,
      409: { description: 'The channel could not report the outcome: the page, saying why.', html: true },
    },
  };
}

/** http://<address the browser reached>:<port>, reachable from this process too. */
export function localBaseUrl(request: FastifyRequest): string {
  const address = request.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${request.socket.localPort}`;
}

export function registerCheckoutRoutes(app: FastifyInstance, service: MerchantConsoleService): void {
  const { store, clock } = service;
  const { sandbox: checkout } = service.services;

  function orderOf(token: string): Promise<OrderRow | undefined> {
    return payToken.safeParse(token).success ? store.read((tx) => checkout.orderByPayToken(tx, token)) : Promise.resolve(undefined);
  }

  async function sendPage(reply: FastifyReply, order: OrderRow, problem?: string): Promise<FastifyReply> {
    const { merchantName, lastCancel } = await store.read(async (tx: ReadTx) => checkout.checkoutFacts(tx, order));
    const expired = order.expires_at !== null && order.expires_at <= clock.now();
    const html = await renderCheckoutPage({
      token: order.pay_token!,
      pageUrl: payUrlOf(order, service.publicUrl())!,
      merchantName,
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
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    scope.get<{ Params: { token: string } }>('/pay/:token', { config: { openapi: pageDoc } }, async (request, reply) => {
      const order = await orderOf(request.params.token);
      return order ? sendPage(reply, order) : notFound(reply);
    });

    for (const action of ['pay', 'fail'] as const) {
      // bodyLimit on the route, not the parser: the 413 answer names the route's limit (request.routeOptions.bodyLimit).
      scope.post<{ Params: { token: string } }>(
        `/pay/:token/${action}`,
        { bodyLimit: CHECKOUT_FORM_LIMIT_BYTES, config: { openapi: actionDoc(action) } },
        async (request, reply) => {
        const order = await orderOf(request.params.token);
        if (!order) return notFound(reply);
        const payable = order.status === 'pending' && (order.expires_at === null || order.expires_at > clock.now());
        // Anything but a payable order: the page says why.
        if (!payable) return reply.status(303).header('location', `../${order.pay_token}`).send();
        try {
          const sandbox = checkout;
          const reason = action === 'pay' ? 'sandbox checkout: payer paid' : 'sandbox checkout: payment failed';
          const delivery = await store.write((tx) => sandbox.notificationFor(tx, order, action, reason));
          await sandbox.deliverOverHttp(localBaseUrl(request), delivery);
        } catch (err) {
          request.log.warn({ err }, 'sandbox checkout: the notification was not accepted');
          const current = (await orderOf(order.pay_token!))!;
          return sendPage(reply, current, isAppError(err) ? `The channel could not report this: ${err.message}` : 'The channel could not reach the service; try again.');
        }
        return reply.status(303).header('location', `../${order.pay_token}`).send();
      });
    }
  });
}
