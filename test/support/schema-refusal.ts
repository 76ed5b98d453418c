import { parseOrThrow } from '../../src-shared/validation/parse';

/** The message a schema refuses the input with (as the services and routes report it), or 'ok' when it accepts it. */
export function refusalMessage(schema: Parameters<typeof parseOrThrow>[0], input: unknown): string {
  try {
    parseOrThrow(schema, input);
  } catch (err) {
    return (err as Error).message;
  }
  return 'ok';
}
