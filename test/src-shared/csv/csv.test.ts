import { describe, expect, it } from 'vitest';
import { CSV_BOM, csvCell, csvLine, formatCsv, neutraliseFormula } from '../../../src-shared/csv/csv';
import { formatOrdersCsv } from '../../../src-shared/csv/orders-csv';
import type { OrderExportRow } from '../../../src-shared/schemas/console';

describe('csvCell', () => {
  it.each([
    // [input, cell]
    ['plain', 'plain'],
    ['张三', '张三'],
    ['', ''],
    [null, ''],
    [undefined, ''],
    [42, '42'],
    [true, 'true'],
    // formula starts are neutralised with an apostrophe
    ['=SUM(A1:A9)', "'=SUM(A1:A9)"],
    ['+86 138', "'+86 138"],
    ['-1+2', "'-1+2"],
    ['@cmd', "'@cmd"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
    ['\n=1', `"'\n=1"`],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    // a plain decimal number is a number, never a formula
    ['-0.05', '-0.05'],
    ['-12', '-12'],
    ['100.50', '100.50'],
    ['-1e3', "'-1e3"],
    ['-', "'-"],
    // quoting: quotes, commas, line breaks, edge whitespace
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['line1\nline2', '"line1\nline2"'],
    ['line1\r\nline2', '"line1\r\nline2"'],
    [' padded', '" padded"'],
    ['padded ', '"padded "'],
    ['a=b', 'a=b'],
  ] as const)('%j → %j', (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  it('neutraliseFormula leaves text that does not start a formula alone', () => {
    expect(neutraliseFormula('B202611211030001234567890')).toBe('B202611211030001234567890');
    expect(neutraliseFormula(' =1')).toBe(' =1');
  });
});

describe('formatCsv', () => {
  const columns = [
    { key: 'a', value: (r: { a: string; b: number }) => r.a },
    { key: 'b', value: (r: { a: string; b: number }) => r.b },
  ];

  it.each([
    [{ header: true, bom: true }, `${CSV_BOM}A,b\r\nx,1\r\n"y,z",2\r\n`],
    [{ header: true, bom: false }, `A,b\r\nx,1\r\n"y,z",2\r\n`],
    [{ header: false, bom: false }, `x,1\r\n"y,z",2\r\n`],
  ] as const)('options %j', (options, expected) => {
    expect(formatCsv(columns, [{ a: 'x', b: 1 }, { a: 'y,z', b: 2 }], { ...options, labels: { a: 'A' } })).toBe(expected);
  });

  it('csvLine ends every line with CRLF', () => {
    expect(csvLine(['a', null, 'b'])).toBe('a,,b\r\n');
  });
});

describe('formatOrdersCsv', () => {
  const base: OrderExportRow = {
    order_no: 'S202601010800001234567890',
    order_id: '7',
    order_type: 2,
    status: 'pending',
    pay_method: 'bank',
    channel_id: 3,
    channel_name: '=cmd|calc',
    channel_category: 'gamma',
    cny_amount: '100.50',
    merchant_amount: '100.50',
    merchant_actual_amount: 10101,
    service_rate: '0.006',
    service_amount: 60,
    passage_rate: '-0.001',
    passage_amount: -10,
    deposit_rate: 50,
    deposit_amount: 50,
    base_rate: 30,
    channel_amount: 30,
    customer_name: null,
    createtime: 1767225600,
    updatetime: 1767225661,
  };

  it('writes amounts in yuan, Beijing times, neutralised text, header and BOM once', () => {
    const first = formatOrdersCsv([base], { header: true, bom: true });
    const lines = first.split('\r\n');
    expect(first.startsWith(CSV_BOM)).toBe(true);
    expect(lines[0]).toBe(
      `${CSV_BOM}order_no,order_type,status,pay_method,channel_name,cny_amount,merchant_actual_amount,service_rate,service_amount,` +
        'passage_rate,passage_amount,deposit_rate,deposit_amount,base_rate,channel_amount,customer_name,createtime,updatetime',
    );
    expect(lines[1]).toBe(
      "S202601010800001234567890,2,pending,bank,'=cmd|calc,100.50,101.01,0.006,0.60,-0.001,-0.10,50,0.50,30,0.30,,2026-01-01 08:00:00,2026-01-01 08:01:01",
    );
    expect(lines).toHaveLength(3);

    const next = formatOrdersCsv([{ ...base, customer_name: '张, "三"' }], { header: false, bom: false });
    expect(next.startsWith(CSV_BOM)).toBe(false);
    expect(next).toContain(',"张, ""三""",');
  });

  it('uses the localised type and status texts when given', () => {
    const text = formatOrdersCsv([base], { header: false, typeText: (t) => (t === 1 ? '买入' : '卖出'), statusText: (s) => `S:${s}` });
    expect(text.split(',').slice(1, 3)).toEqual(['卖出', 'S:pending']);
  });
});
