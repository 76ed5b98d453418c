import { describe, expect, it } from 'vitest';
import { JsonDecimal, JsonSyntaxError, parseJsonLossless, receivedKeys, stringifyForSigning, type JsonObject, type JsonValue } from '../../../src-shared/json/lossless-json';

describe('parseJsonLossless', () => {
  it('keeps canonical safe integers as numbers and everything else as decimal text', () => {
    const v = parseJsonLossless('{"a":1767225600,"b":100.50,"c":-0,"d":1e3,"e":12345678901234567890,"f":-12,"g":0}') as JsonObject;
    expect(v.a).toBe(1767225600);
    expect(v.b).toEqual(new JsonDecimal('100.50'));
    expect(v.c).toEqual(new JsonDecimal('-0'));
    expect(v.d).toEqual(new JsonDecimal('1e3'));
    expect(v.e).toEqual(new JsonDecimal('12345678901234567890'));
    expect(v.f).toBe(-12);
    expect(v.g).toBe(0);
  });

  it('keeps the order members arrived in, integer-like keys included', () => {
    const v = parseJsonLossless('{"b":1,"2":2,"a":3,"1":4}') as JsonObject;
    expect(receivedKeys(v)).toEqual(['b', '2', 'a', '1']);
    expect(Object.keys(v)).toEqual(['1', '2', 'b', 'a']); // what JS would have done
  });

  it('reads a number as an integer only without fraction or exponent, and only while it is safe', () => {
    const v = parseJsonLossless('[1.0,1e0,1E+3,10,-5,9007199254740991,9007199254740993,-9007199254740991,-9007199254740992,10000000000000000,0.5,-0.0]') as JsonValue[];
    expect(v).toEqual([
      new JsonDecimal('1.0'), new JsonDecimal('1e0'), new JsonDecimal('1E+3'), 10, -5, 9007199254740991, new JsonDecimal('9007199254740993'),
      -9007199254740991, new JsonDecimal('-9007199254740992'), new JsonDecimal('10000000000000000'), new JsonDecimal('0.5'), new JsonDecimal('-0.0'),
    ]);
    expect(() => parseJsonLossless('[-]')).toThrow('bad number');
    expect(() => parseJsonLossless('[-a]')).toThrow('bad number');
    expect(() => parseJsonLossless('[1e]')).toThrow('bad number exponent');
  });

  it('lists the keys of an object without integer-like keys in received order, however it is asked', () => {
    const v = parseJsonLossless('{"z":1,"toString":3,"a":{"y":1,"x":2}}') as JsonObject;
    expect(receivedKeys(v)).toEqual(['z', 'toString', 'a']);
    expect(Object.keys(v)).toEqual(['z', 'toString', 'a']);
    expect(Object.hasOwn(v, 'toString')).toBe(true);
    expect(receivedKeys(v.a as JsonObject)).toEqual(['y', 'x']);
  });

  it('keeps the received order of keys starting with a digit, "__proto__" among them', () => {
    const v = parseJsonLossless('{"1a":1,"1":2,"__proto__":{"p":1},"a":3}') as JsonObject;
    expect(receivedKeys(v)).toEqual(['1a', '1', '__proto__', 'a']);
    expect(Object.keys(v)).toEqual(['1', '1a', '__proto__', 'a']);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(stringifyForSigning(v)).toBe('{"1a":1,"1":2,"__proto__":{"p":1},"a":3}');
  });

  it('defines a name the object inherits as its own data: no inherited setter runs, duplicates are still found', () => {
    let calls = 0;
    Object.defineProperty(Object.prototype, 'inheritedSetter', { set: () => calls++, configurable: true });
    try {
      const v = parseJsonLossless('{"inheritedSetter":{"a":[1,2]},"after":[3]}') as JsonObject;
      expect(calls).toBe(0);
      expect(Object.getOwnPropertyDescriptor(v, 'inheritedSetter')).toEqual({ value: { a: [1, 2] }, enumerable: true, writable: true, configurable: true });
      expect(v.after).toEqual([3]);
      expect(() => parseJsonLossless('{"inheritedSetter":1,"inheritedSetter":2}')).toThrow('duplicate key "inheritedSetter"');
    } finally {
      delete (Object.prototype as Record<string, unknown>).inheritedSetter;
    }
  });

  it('refuses a duplicate key whatever it is named, "__proto__" and inherited names included', () => {
    expect(() => parseJsonLossless('{"__proto__":1,"__proto__":2}')).toThrow('duplicate key "__proto__"');
    expect(() => parseJsonLossless('{"toString":1,"toString":2}')).toThrow('duplicate key "toString"');
    expect(() => parseJsonLossless('{"1":1,"a":2,"1":3}')).toThrow('duplicate key "1"');
    expect(() => parseJsonLossless('{"1":1,"\\u0031":2}')).toThrow('duplicate key "1"');
  });

  it('says where the text went wrong', () => {
    const positionOf = (text: string) => {
      try {
        parseJsonLossless(text);
      } catch (err) {
        return [(err as JsonSyntaxError).position, (err as Error).message];
      }
      return undefined;
    };
    expect(positionOf('{"a":1,"a":2}')).toEqual([10, 'duplicate key "a" at position 10']);
    expect(positionOf('[1,')).toEqual([3, 'unexpected end of input at position 3']);
    expect(positionOf('{"a":1} x')).toEqual([8, 'unexpected data after JSON value at position 8']);
  });

  it('parses again after a failure, with its own options (the parser keeps no state between calls)', () => {
    expect(() => parseJsonLossless('{"a":')).toThrow(JsonSyntaxError);
    expect(parseJsonLossless('{"b":2}')).toEqual({ b: 2 });
    expect(() => parseJsonLossless('[[1]]', { maxDepth: 1 })).toThrow('nesting deeper than 1');
    expect(parseJsonLossless('[[1]]')).toEqual([[1]]);
    expect(() => parseJsonLossless('['.repeat(200_000), { maxDepth: Infinity })).toThrow(RangeError);
    expect(parseJsonLossless('{"c":[3]}')).toEqual({ c: [3] });
  });

  it('decodes escapes and keeps non-ASCII', () => {
    expect(parseJsonLossless('"\\u5f20\\u4e09 \\/ \\n 张"')).toBe('张三 / \n 张');
  });

  it('never lets a "__proto__" key become a prototype', () => {
    const v = parseJsonLossless('{"__proto__":{"polluted":true}}') as JsonObject;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(receivedKeys(v)).toEqual(['__proto__']);
  });

  it.each([
    ['', 'unexpected end of input'],
    ['{"a":1,}', 'expected string key'],
    ['{"a":1,"a":2}', 'duplicate key "a"'],
    ['{"a":01}', 'expected "," or "}"'],
    ['{"a":1.}', 'bad number fraction'],
    ['{"a":.5}', 'unexpected token'],
    ['{"a":NaN}', 'unexpected token'],
    ['{"a":"x\u0001"}', 'control character'],
    ['{"a":"\\x"}', 'bad escape'],
    ['{"a":"\\u12"}', 'bad unicode escape'],
    ['{"a":1} x', 'unexpected data'],
    ['{"a":tru}', 'unexpected token'],
    ['[1,2', 'expected "," or "]"'],
    ['{"a"', 'expected ":"'],
  ])('rejects %j (%s)', (text, message) => {
    expect(() => parseJsonLossless(text)).toThrow(JsonSyntaxError);
    expect(() => parseJsonLossless(text)).toThrow(message);
  });

  it('limits nesting depth', () => {
    expect(() => parseJsonLossless('['.repeat(33) + ']'.repeat(33))).toThrow('nesting deeper than 32');
    expect(parseJsonLossless('['.repeat(32) + ']'.repeat(32))).toBeInstanceOf(Array);
  });
});

describe('stringifyForSigning', () => {
  it('writes JSON the way the signature defines: received order, no spaces, \\/ escaped, non-ASCII as is, numbers verbatim', () => {
    const v = parseJsonLossless('{ "z" : "a/b<>&张", "n": 1.50, "arr": [1, true, null, {"2":"x","1":"y"}] }');
    expect(stringifyForSigning(v)).toBe('{"z":"a\\/b<>&张","n":1.50,"arr":[1,true,null,{"2":"x","1":"y"}]}');
  });

  it('escapes quotes, backslashes and control characters', () => {
    expect(stringifyForSigning({ a: 'q"b\\c\n\u0001' })).toBe('{"a":"q\\"b\\\\c\\n\\u0001"}');
  });

  it('keeps U+2028 and U+2029 as is, like every non-ASCII character (PHP needs JSON_UNESCAPED_LINE_TERMINATORS for the same text)', () => {
    expect(stringifyForSigning({ a: 'x\u2028y\u2029z' })).toBe('{"a":"x\u2028y\u2029z"}');
  });
});
