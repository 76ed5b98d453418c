/**
 * The `idempotency_key` of one console write being filled in (an order, a
 * balance adjustment; docs/console.md): random, kept across retries of that
 * write, so a retry after an answer that never arrived gets what the service
 * already did instead of doing it twice (a second order, a second debit, a
 * second adjustment). Renewed once the write succeeded.
 * getRandomValues, not randomUUID: a console opened over plain http on a LAN
 * address is not a secure context.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `form-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
