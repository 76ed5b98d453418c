/**
 * docs/api.md's error table is the documented contract: it must list every
 * code the service can answer with, with the HTTP status the code maps to.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCodeTable } from '../../src-shared/errors';
import { computeSignature, verifySignature } from '../../src-shared/client/sign';
import { SIGNING_RULES, signingExample } from '../../src-main/http/openapi/signing-doc';

describe('docs/api.md', () => {
  it('has the error table errors.ts makes: every code, its HTTP status and its meaning, in code order', () => {
    const doc = fs.readFileSync('docs/api.md', 'utf8');
    const documented = [...doc.matchAll(/^\| \d{4} \| .*$/gm)].map((m) => m[0]);
    // The one source is src-shared/errors.ts; on a mismatch, paste the expected rows into docs/api.md.
    const expected = errorCodeTable().map((e) => `| ${e.code} | ${e.httpStatus} | ${e.meaning} |`);
    expect(documented.join('\n')).toBe(expected.join('\n'));
  });

  it('says what the service does with the case of a signature: sends uppercase hex, accepts either case', () => {
    const doc = fs.readFileSync('docs/api.md', 'utf8');
    const rule = doc.slice(doc.indexOf('5. The signature is'), doc.indexOf('Example: secret'));
    const params = { api_key: 'mk_x', timestamp: 1, nonce: 'n' };
    const signature = computeSignature(params, 's');
    expect(signature).toMatch(/^[0-9A-F]{64}$/);
    expect(rule).toContain('**uppercase hex**');
    for (const given of [signature.toLowerCase(), signature.slice(0, 32) + signature.slice(32).toLowerCase()]) {
      expect(verifySignature(params, given, 's', 'hmac-sha256')).toBe(true);
    }
    expect(rule).toMatch(/lowercase or mixed-case hex is accepted too/);
  });
});

describe('docs/api.md and the OpenAPI document', () => {
  const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();

  it('explain signing with the same rules and the same worked example', () => {
    const doc = fs.readFileSync('docs/api.md', 'utf8');
    const rules = /### The signature\n\n([\s\S]*?)\n\nExample:/.exec(doc)?.[1];
    expect(rules).toBeDefined();
    expect(normalise(rules!)).toBe(normalise(SIGNING_RULES));
    const example = signingExample();
    for (const text of [`secret \`${example.secret}\``, example.body, example.stringToSign, `md5 \`${example.md5}\``, `hmac-sha256 \`${example.hmacSha256}\``]) {
      expect(doc).toContain(text);
    }
  });
});
