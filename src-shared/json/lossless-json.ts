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

/**
 * The received member order of a parsed object whose keys JS would list in
 * another order (it lists integer-like keys first); any other object lists
 * its keys in the order they arrived. Parsed values are read, never
 * changed: a member added to or deleted from one would show in
 * receivedKeys of the latter kind only.
 */
const memberOrder = new WeakMap<object, string[]>();

export function receivedKeys(obj: JsonObject): string[] {
  return memberOrder.get(obj) ?? Object.keys(obj);
}

/**
 * The parser's state. Module-level rather than closures made per call: a
 * request body is parsed on every signed request (docs/benchmarks.md). Parsing
 * is synchronous, so one state at a time is enough.
 */
let text = '';
let pos = 0;
let maxDepth = 32;

export function parseJsonLossless(source: string, options: ParseOptions = {}): JsonValue {
  text = source;
  pos = 0;
  maxDepth = options.maxDepth ?? 32;
  try {
    const value = parseValue(0);
    skipWhitespace();
    if (pos !== text.length) fail('unexpected data after JSON value');
    return value;
  } finally {
    // The parser's state does not keep the last body alive (values parsed from it may, as slices of it).
    text = '';
  }
}

function fail(message: string): never {
  throw new JsonSyntaxError(message, pos);
}

function skipWhitespace(): void {
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
    else break;
  }
}

function parseString(): string {
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
}

/** Whether the character code at `at` is a decimal digit (false past the end: NaN). */
function isDigitAt(at: number): boolean {
  const c = text.charCodeAt(at);
  return c >= 0x30 && c <= 0x39;
}

function skipDigits(): void {
  while (isDigitAt(pos)) pos++;
}

function parseNumber(): number | JsonDecimal {
  const start = pos;
  if (text.charCodeAt(pos) === 0x2d /* - */) pos++;
  if (text.charCodeAt(pos) === 0x30 /* 0 */) pos++;
  else if (isDigitAt(pos)) skipDigits();
  else fail('bad number');
  // Only an integer without a leading "-0" can be a canonical safe integer.
  let integer = true;
  if (text.charCodeAt(pos) === 0x2e /* . */) {
    integer = false;
    pos++;
    const digitsStart = pos;
    skipDigits();
    if (pos === digitsStart) fail('bad number fraction');
  }
  const e = text.charCodeAt(pos);
  if (e === 0x65 || e === 0x45 /* e E */) {
    integer = false;
    pos++;
    const sign = text.charCodeAt(pos);
    if (sign === 0x2b || sign === 0x2d /* + - */) pos++;
    const digitsStart = pos;
    skipDigits();
    if (pos === digitsStart) fail('bad number exponent');
  }
  const raw = text.slice(start, pos);
  if (integer && raw !== '-0' && raw.length <= 17) {
    const n = Number(raw);
    if (Number.isSafeInteger(n)) return n;
  }
  return new JsonDecimal(raw);
}

function parseObject(depth: number): JsonObject {
  if (depth + 1 > maxDepth) fail(`nesting deeper than ${maxDepth}`);
  pos++;
  const obj: JsonObject = {};
  skipWhitespace();
  if (text.charCodeAt(pos) === 0x7d /* } */) {
    pos++;
    return obj;
  }
  const keys: string[] = [];
  // JS lists integer-like keys first, whatever their order: only then is the received order kept aside.
  let reordered = false;
  for (;;) {
    skipWhitespace();
    if (text.charCodeAt(pos) !== 0x22) fail('expected string key');
    const key = parseString();
    if (Object.hasOwn(obj, key)) fail(`duplicate key "${key.slice(0, 64)}"`);
    skipWhitespace();
    if (text.charCodeAt(pos) !== 0x3a /* : */) fail('expected ":"');
    pos++;
    const value = parseValue(depth + 1);
    // A name the object inherits ("__proto__", "toString", anything a library added to Object.prototype) is
    // defined as data: assigning it would set a prototype, run an inherited setter or fail on a frozen one.
    if (key in obj) Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
    else obj[key] = value;
    keys.push(key);
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) reordered = true;
    skipWhitespace();
    const c = text.charCodeAt(pos);
    if (c === 0x2c /* , */) {
      pos++;
      continue;
    }
    if (c === 0x7d /* } */) {
      pos++;
      if (reordered) memberOrder.set(obj, keys);
      return obj;
    }
    fail('expected "," or "}"');
  }
}

function parseArray(depth: number): JsonValue[] {
  if (depth + 1 > maxDepth) fail(`nesting deeper than ${maxDepth}`);
  pos++;
  const arr: JsonValue[] = [];
  skipWhitespace();
  if (text.charCodeAt(pos) === 0x5d /* ] */) {
    pos++;
    return arr;
  }
  for (;;) {
    arr.push(parseValue(depth + 1));
    skipWhitespace();
    const c = text.charCodeAt(pos);
    if (c === 0x2c /* , */) {
      pos++;
      continue;
    }
    if (c === 0x5d /* ] */) {
      pos++;
      return arr;
    }
    fail('expected "," or "]"');
  }
}

function parseValue(depth: number): JsonValue {
  skipWhitespace();
  switch (text.charCodeAt(pos)) {
    case 0x7b /* { */:
      return parseObject(depth);
    case 0x5b /* [ */:
      return parseArray(depth);
    case 0x22 /* " */:
      return parseString();
    case 0x74 /* t */:
      if (text.startsWith('true', pos)) {
        pos += 4;
        return true;
      }
      return fail('unexpected token');
    case 0x66 /* f */:
      if (text.startsWith('false', pos)) {
        pos += 5;
        return false;
      }
      return fail('unexpected token');
    case 0x6e /* n */:
      if (text.startsWith('null', pos)) {
        pos += 4;
        return null;
      }
      return fail('unexpected token');
    default:
      if (text.charCodeAt(pos) === 0x2d || isDigitAt(pos)) return parseNumber();
      return fail(pos >= text.length ? 'unexpected end of input' : 'unexpected token');
  }
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
