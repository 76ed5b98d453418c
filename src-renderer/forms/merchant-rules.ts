/**
 * Rules of the merchant forms decided by the service's own schemas
 * (src-shared/schemas/operator.ts), like the staff forms' (account-rules.ts).
 */
import { merchantUpdateInput } from '../../src-shared/schemas/operator';
import type { FieldCheck } from './field-check';
import { schemaCheck } from './schema-check';

/** A callback URL: empty means no callbacks; else an http(s) URL as the service takes it. */
export function callbackUrlCheck<M>(pick: (m: M) => string): FieldCheck<M> {
  return schemaCheck(merchantUpdateInput.shape.callback_url, (m) => pick(m).trim() || null, 'settings.rules.callbackUrl');
}
