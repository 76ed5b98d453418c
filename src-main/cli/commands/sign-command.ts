import { computeSignature } from '../../../src-shared/client/sign';
import { isJsonObject, JsonSyntaxError, parseJsonLossless, type JsonValue } from '../../../src-shared/json/lossless-json';
import { SIGN_TYPES, type SignType, DEFAULT_SIGN_TYPE } from '../../../src-shared/signing';
import { defineCommand, requiredOption, stringOption, UsageError } from '../command';

/** `sign`: reads a JSON body on stdin (and the query string, if any), prints its signature (for curl users). */
export const signCommand = defineCommand({
  name: 'sign',
  summary: 'print the signature of a JSON request body read from stdin',
  usage:
    "sign --secret S [--sign-type hmac-sha256|md5] [--query 'name=value&…'] < body.json\n" +
    '  or set MERCHANT_CONSOLE_API_SECRET instead of --secret (keeps the secret out of ps and the shell history)',
  // --query: the URL's query string (as sent, URL-encoded), whose parameters are signed with the body's.
  options: { secret: { type: 'string' }, 'sign-type': { type: 'string' }, query: { type: 'string' } },
  positionals: 0,
  async run(args, io) {
    const secret = args.values.secret === undefined ? io.env.MERCHANT_CONSOLE_API_SECRET : requiredOption(args, 'secret');
    if (!secret) throw new UsageError('--secret is required (or set MERCHANT_CONSOLE_API_SECRET)');
    const signType = (stringOption(args, 'sign-type') ?? DEFAULT_SIGN_TYPE) as SignType;
    if (!SIGN_TYPES.includes(signType)) throw new UsageError(`--sign-type must be one of ${SIGN_TYPES.join(', ')}`);
    let body;
    try {
      body = parseJsonLossless(await io.readStdin());
    } catch (err) {
      if (err instanceof JsonSyntaxError) throw new UsageError(`stdin is not valid JSON: ${err.message}`);
      throw err;
    }
    if (!isJsonObject(body)) throw new UsageError('stdin must hold a JSON object');
    const params: Record<string, JsonValue> = { ...body };
    const query = new URLSearchParams(stringOption(args, 'query')?.replace(/^\?/, '') ?? '');
    for (const name of new Set(query.keys())) {
      // The service refuses both (400, code 1004 / a repeated name), so there is nothing to sign.
      if (Object.hasOwn(body, name)) throw new UsageError(`--query: ${name} is in the body too`);
      if (query.getAll(name).length > 1) throw new UsageError(`--query: ${name} is given more than once`);
      params[name] = query.get(name)!;
    }
    return { signature: computeSignature(params, secret, signType), sign_type: signType };
  },
  human: (r) => r.signature,
});
