/**
 * A strict JSON parser that keeps what JSON.parse throws away and the
 * signature needs: the exact text of every number and the order in which
 * object members arrived. It also refuses what a payment API should refuse:
 * duplicate keys and absurd nesting.
 *
 * Numbers that are canonical safe integers (`0`, `-12`, `1767225600`) become
 * plain JS numbers, because their text is recoverable with String(n). Every
 * other number (`100.50`, `1e3`, `-0`, `12345678901234567890`) becomes a
 * JsonDecimal carrying its source text, so no schema can mistake it for an
 * integer and no digit is lost.
 */

export class JsonDecimal {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

export type JsonValue = null | boolean | number | string | JsonDecimal | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
    this.name = 'JsonSyntaxError';
  }
}

export interface ParseOptions {
  /** Deepest allowed nesting of objects/arrays; the top level counts as 1. */
  maxDepth?: number;
}

/** Received member order of each parsed object (JS reorders integer-like keys). */
const memberOrder = new WeakMap<object, string[]>();

export function receivedKeys(obj: JsonObject): string[] {
  return memberOrder.get(obj) ?? Object.keys(obj);
}

const CANONICAL_INT = /^-?(?:0|[1-9][0-9]*)$/;

export function parseJsonLossless(text: string, options: ParseOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? 32;
  let pos = 0;

  const fail = (message: string): never => {
    throw new JsonSyntaxError(message, pos);
  };

  const skipWhitespace = (): void => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
  };

  const parseString = (): string => {
    // Caller guarantees text[pos] === '"'.
    pos++;
    let out = '';
    let chunkStart = pos;
    for (;;) {
      if (pos >= text.length) fail('unterminated string');
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        out += text.slice(chunkStart, pos);
        pos++;
        return out;
      }
      if (c < 0x20) fail('control character in string');
      if (c !== 0x5c) {
        pos++;
        continue;
      }
      out += text.slice(chunkStart, pos);
      pos++;
      const e = text[pos];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = text.slice(pos + 1, pos + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad unicode escape');
          out += String.fromCharCode(parseInt(hex, 16));
          pos += 4;
          break;
        }
        default:
          fail('bad escape');
      }
      pos++;
      chunkStart = pos;
    }
  };

  const parseNumber = (): number | JsonDecimal => {
    const start = pos;
    if (text[pos] === '-') pos++;
    if (text[pos] === '0') pos++;
    else if (text[pos] !== undefined && text[pos]! >= '1' && text[pos]! <= '9') {
      while (text[pos] !== undefined && text[pos]! >= '0' && text[pos]! <= '9') pos++;
    } else fail('bad number');
    if (text[pos] === '.') {
      pos++;
      const digitsStart = pos;
      while (text[pos] !== undefined && text[pos]! >= '0' && text[pos]! <= '9') pos++;
      if (pos === digitsStart) fail('bad number fraction');
    }
    if (text[pos] === 'e' || text[pos] === 'E') {
      pos++;
      if (text[pos] === '+' || text[pos] === '-') pos++;
      const digitsStart = pos;
      while (text[pos] !== undefined && text[pos]! >= '0' && text[pos]! <= '9') pos++;
      if (pos === digitsStart) fail('bad number exponent');
    }
    const raw = text.slice(start, pos);
    if (raw !== '-0' && raw.length <= 17 && CANONICAL_INT.test(raw)) {
      const n = Number(raw);
      if (Number.isSafeInteger(n)) return n;
    }
    return new JsonDecimal(raw);
  };

  const parseValue = (depth: number): JsonValue => {
    skipWhitespace();
    const c = text[pos];
    switch (c) {
      case '{': {
        if (depth + 1 > maxDepth) fail(`nesting deeper than ${maxDepth}`);
        pos++;
        const obj: JsonObject = {};
        const keys: string[] = [];
        const seen = new Set<string>();
        skipWhitespace();
        if (text[pos] === '}') {
          pos++;
          memberOrder.set(obj, keys);
          return obj;
        }
        for (;;) {
          skipWhitespace();
          if (text[pos] !== '"') fail('expected string key');
          const key = parseString();
          if (seen.has(key)) fail(`duplicate key "${key.slice(0, 64)}"`);
          seen.add(key);
          skipWhitespace();
          if (text[pos] !== ':') fail('expected ":"');
          pos++;
          const value = parseValue(depth + 1);
          // defineProperty: a "__proto__" key must stay data, never a prototype.
          Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
          keys.push(key);
          skipWhitespace();
          if (text[pos] === ',') {
            pos++;
            continue;
          }
          if (text[pos] === '}') {
            pos++;
            memberOrder.set(obj, keys);
            return obj;
          }
          fail('expected "," or "}"');
        }
      }
       
      case '[': {
        if (depth + 1 > maxDepth) fail(`nesting deeper than ${maxDepth}`);
        pos++;
        const arr: JsonValue[] = [];
        skipWhitespace();
        if (text[pos] === ']') {
          pos++;
          return arr;
        }
        for (;;) {
          arr.push(parseValue(depth + 1));
          skipWhitespace();
          if (text[pos] === ',') {
            pos++;
            continue;
          }
          if (text[pos] === ']') {
            pos++;
            return arr;
          }
          fail('expected "," or "]"');
        }
      }
       
      case '"':
        return parseString();
      case 't':
        if (text.startsWith('true', pos)) {
          pos += 4;
          return true;
        }
        return fail('unexpected token');
      case 'f':
        if (text.startsWith('false', pos)) {
          pos += 5;
          return false;
        }
        return fail('unexpected token');
      case 'n':
        if (text.startsWith('null', pos)) {
          pos += 4;
          return null;
        }
        return fail('unexpected token');
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return parseNumber();
        return fail(c === undefined ? 'unexpected end of input' : 'unexpected token');
    }
  };

  const value = parseValue(0);
  skipWhitespace();
  if (pos !== text.length) fail('unexpected data after JSON value');
  return value;
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonDecimal);
}

/**
 * The JSON text of a value as the signature sees it: members in received
 * order, no whitespace, non-ASCII as is, "/" escaped as "\/", numbers as
 * their source text (the conventions of PHP's json_encode with
 * JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_LINE_TERMINATORS, which many
 * merchant SDKs use; PHP 7.1+ escapes U+2028/U+2029 without the second flag).
 */
export function stringifyForSigning(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return quoteForSigning(value);
  if (value instanceof JsonDecimal) return value.text;
  if (Array.isArray(value)) return `[${value.map(stringifyForSigning).join(',')}]`;
  const parts = receivedKeys(value).map((k) => `${quoteForSigning(k)}:${stringifyForSigning(value[k]!)}`);
  return `{${parts.join(',')}}`;
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function quoteForSigning(s: string): string {
   
  return `"${s.replace(/["\\/\u0000-\u001f]/g, (ch) => SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}
