/**
 * Request signing as the API reference explains it: the canonical-string
 * rules (the same text as docs/api.md, "The signature"; a docs test keeps the
 * two equal) and the worked example, computed here by the real signer.
 */
import { computeSignature } from '../../../src-shared/client/sign';
import { NONCE_PATTERN, NONCE_RETENTION_SECONDS, TIMESTAMP_TOLERANCE_SECONDS } from '../../../src-shared/constants';
import { parseJsonLossless, type JsonObject } from '../../../src-shared/json/lossless-json';
import { buildSigningString } from '../../../src-shared/signing';

export const SIGNING_RULES = `1. **Parameters** are the JSON body's top-level members plus the query-string
   parameters (a name present in both is refused with 400). \`signature\` itself is
   left out.
2. **Values** are written as text:
   - strings as they are (no URL encoding, no escaping);
   - numbers as their JSON text, exactly as sent (\`100.50\` stays \`100.50\`; the
     server parses bodies losslessly);
   - \`true\` / \`false\`;
   - objects and arrays as JSON: members in the order sent, no whitespace,
     non-ASCII as is (U+2028 and U+2029 included), \`/\` written \`\\/\`, \`< > &\`
     as is (what PHP's
     \`json_encode($v, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_LINE_TERMINATORS)\`
     produces, except that numbers keep their text; without the second flag PHP
     7.1+ writes U+2028/U+2029 as \`\\u2028\`/\`\\u2029\` and the signature differs).
3. Members whose value is \`null\` or the empty string are dropped (and the
   service treats them as not sent, above).
4. The names are sorted in byte order (UTF-8), joined as \`name=value\` with \`&\`,
   and \`&api_secret=<secret>\` is appended.
5. The signature is the **uppercase hex** of
   - \`hmac-sha256\` (default): HMAC-SHA256 of that string keyed by the secret, or
   - \`md5\` (for existing SDKs): MD5 of the UTF-8 string.

   The service writes uppercase hex (callbacks, \`sign\`, the client); it
   compares without regard to case, so lowercase or mixed-case hex is accepted too
   (what PHP's \`md5()\` and \`hash_hmac()\` give; docs/decisions.md). Only the
   merchant's configured sign type is accepted. The comparison takes constant time.`;

export const SIGNING_EXAMPLE_SECRET = 'sk_demo_secret';
export const SIGNING_EXAMPLE_BODY =
  '{"api_key":"mk_demo_0001","timestamp":1767225600,"nonce":"n0nce-123","order_type":1,"cny_amount":"100.50","paychannel_id":3,"paychannel_paymethod":"alipay","customer_name":"张三"}';

export interface SigningExample {
  secret: string;
  body: string;
  stringToSign: string;
  md5: string;
  hmacSha256: string;
}

export function signingExample(): SigningExample {
  const body = parseJsonLossless(SIGNING_EXAMPLE_BODY) as JsonObject;
  return {
    secret: SIGNING_EXAMPLE_SECRET,
    body: SIGNING_EXAMPLE_BODY,
    stringToSign: buildSigningString(body, SIGNING_EXAMPLE_SECRET),
    md5: computeSignature(body, SIGNING_EXAMPLE_SECRET, 'md5'),
    hmacSha256: computeSignature(body, SIGNING_EXAMPLE_SECRET, 'hmac-sha256'),
  };
}

/** The description of the `requestSignature` security scheme (Markdown). */
export function signingSchemeDescription(): string {
  const ex = signingExample();
  return `**Carried in the JSON body, not in a header.** OpenAPI has no security scheme for members of the request body, so this
apiKey declaration (header \`api_key\`) only marks which operations are signed: the service reads no such header.

Every signed request carries four members in its JSON body:

| Name | Type | Rule |
|---|---|---|
| api_key | string | the merchant's public key, \`mk_…\` |
| timestamp | integer | Unix seconds; refused when more than **${TIMESTAMP_TOLERANCE_SECONDS} s** from the server clock (either way) |
| nonce | string | \`${NONCE_PATTERN.source}\`, new for every request (a used one is refused for ${NONCE_RETENTION_SECONDS} s) |
| signature | string | see below |

A signed request uses up its nonce even when its parameters turn out to be invalid: a retry needs a new nonce and signature.

### The signature

${SIGNING_RULES}

### Example

Secret \`${ex.secret}\`, body

\`\`\`json
${ex.body}
\`\`\`

string to sign:

\`\`\`
${ex.stringToSign}
\`\`\`

md5 \`${ex.md5}\`, hmac-sha256 \`${ex.hmacSha256}\`.

\`merchant-console sign --secret S [--sign-type md5] [--query 'category=beta'] < body.json\` prints the signature of a body.`;
}
