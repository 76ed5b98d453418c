/**
 * The sandbox channel's hosted checkout page (GET /pay/<token>), rendered on
 * the server: no script, no external resource, a strict Content-Security-
 * Policy (the one style block is allowed by its hash, the QR code is an
 * inline data: image of the page's own URL).
 */
import { createHash } from 'node:crypto';
import QRCode from 'qrcode';
import { formatFen } from '../../src-shared/money';
import { payMethodText } from '../../src-shared/constants';
import type { OrderStatus } from '../../src-shared/constants';
import { formatBeijingTime } from '../../src-shared/beijing-time';

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,"PingFang SC","Microsoft YaHei",sans-serif;background:#f4f5f7;color:#1f2329;margin:0}
main{max-width:420px;margin:40px auto;background:#fff;border-radius:12px;padding:28px;box-shadow:0 2px 12px rgba(0,0,0,.08)}
h1{font-size:18px;margin:0 0 4px}
.sandbox{display:inline-block;font-size:12px;color:#8a5a00;background:#fff4d6;border-radius:4px;padding:1px 6px}
.amount{font-size:34px;font-weight:600;margin:18px 0 6px}
dl{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;margin:16px 0;font-size:14px}
dt{color:#646a73}dd{margin:0;word-break:break-all}
.qr{text-align:center;margin:16px 0}.qr img{width:180px;height:180px}
.state{border-radius:8px;padding:12px 14px;margin:16px 0;font-weight:500}
.state.ok{background:#e8f7ee;color:#1a7f45}.state.wait{background:#eef3ff;color:#2b5fd9}.state.bad{background:#fdecec;color:#c0362c}
.actions{display:flex;gap:12px}.actions form{flex:1}
button{width:100%;font:inherit;font-weight:600;border:0;border-radius:8px;padding:12px;cursor:pointer;background:#1677ff;color:#fff}
button.fail{background:#fff;color:#c0362c;border:1px solid #f0b4ae}
.note{font-size:12px;color:#8f959e;margin-top:18px}
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`;

/** The page's Content-Security-Policy: nothing but its own style block, data: images and forms back to itself. */
export const CHECKOUT_CSP = [
  "default-src 'none'",
  `style-src ${STYLE_HASH}`,
  'img-src data:',
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const CHECKOUT_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CHECKOUT_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // The token in the URL is the capability to pay: never leak it to other sites, never cache the page.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export type CheckoutState = 'payable' | 'expired' | 'paid' | 'completed' | 'failed' | 'cancelled';

export interface CheckoutView {
  token: string;
  /** The page's own public URL (encoded in the QR code). */
  pageUrl: string;
  merchantName: string;
  orderNo: string;
  amountFen: number;
  payMethod: string;
  state: CheckoutState;
  expiresAt: number | null;
  /** Set when the previous action could not be completed. */
  problem?: string | undefined;
}

/** What the page says for an order in a given status. */
export function checkoutStateOf(status: OrderStatus, expired: boolean, cancelSource: string | null): CheckoutState {
  if (status === 'pending') return expired ? 'expired' : 'payable';
  if (status === 'paid') return 'paid';
  if (status === 'completed') return 'completed';
  if (cancelSource === 'expiry') return 'expired';
  if (cancelSource === 'channel') return 'failed';
  return 'cancelled';
}

const STATE_TEXT: Record<Exclude<CheckoutState, 'payable'>, { cls: string; text: string }> = {
  expired: { cls: 'bad', text: 'This order has expired and can no longer be paid.' },
  paid: { cls: 'wait', text: 'Payment received. The funds are being settled.' },
  completed: { cls: 'ok', text: 'Paid. This order is complete.' },
  failed: { cls: 'bad', text: 'The payment failed. This order is closed.' },
  cancelled: { cls: 'bad', text: 'This order was cancelled.' },
};

/** The page's QR code of a URL, as the `src` of its image. */
export async function qrCodeImageSrc(url: string): Promise<string> {
  const qr = await QRCode.toString(url, { type: 'svg', margin: 1, width: 180, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;base64,${Buffer.from(qr, 'utf8').toString('base64')}`;
}

export async function renderCheckoutPage(v: CheckoutView): Promise<string> {
  const qrSrc = await qrCodeImageSrc(v.pageUrl);
  const amount = formatFen(v.amountFen);
  const body =
    v.state === 'payable'
      ? `<div class="actions">
  <form method="post" action="${escapeHtml(v.token)}/pay"><input type="hidden" name="action" value="pay"><button type="submit">Pay ¥${amount}</button></form>
  <form method="post" action="${escapeHtml(v.token)}/fail"><input type="hidden" name="action" value="fail"><button type="submit" class="fail">Fail</button></form>
</div>`
      : `<div class="state ${STATE_TEXT[v.state].cls}">${STATE_TEXT[v.state].text}</div>`;
  const expires = v.state === 'payable' && v.expiresAt ? `<dt>Pay before</dt><dd>${formatBeijingTime(v.expiresAt)} (UTC+8)</dd>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex">
<title>Checkout ${escapeHtml(v.orderNo)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(v.merchantName)}</h1>
<span class="sandbox">Sandbox channel — no real money moves</span>
<div class="amount">¥${amount}</div>
<dl>
<dt>Order</dt><dd>${escapeHtml(v.orderNo)}</dd>
<dt>Pay with</dt><dd>${escapeHtml(payMethodText(v.payMethod))}</dd>
${expires}
</dl>
${v.problem ? `<div class="state bad">${escapeHtml(v.problem)}</div>` : ''}
${body}
<div class="qr"><img src="${qrSrc}" alt="QR code of this payment page"></div>
<p class="note">Scan to open this page on another device.</p>
</main>
</body>
</html>
`;
}

export function renderMissingPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Payment not found</title><style>${STYLE}</style></head>
<body><main><h1>Payment not found</h1><div class="state bad">This payment link is not valid.</div></main></body></html>
`;
}
