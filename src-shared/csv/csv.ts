/**
 * CSV for spreadsheets (RFC 4180 quoting, CRLF line ends, UTF-8 BOM so Excel
 * reads Chinese text correctly) with formula-injection neutralised: a cell
 * that a spreadsheet could run as a formula (it starts with = + - @, tab,
 * carriage return or line feed) gets a leading apostrophe, unless the whole cell is a
 * plain decimal number such as -0.05 (a number is never a formula, and an
 * apostrophe would turn it into text). Pure functions; browser-safe.
 */

export const CSV_BOM = '\uFEFF';
export const CSV_EOL = '\r\n';

const FORMULA_START = /^[=+\-@\t\r\n]/;
const PLAIN_NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

export type CsvValue = string | number | boolean | null | undefined;

/** `=1+2` → `'=1+2`; `-0.05` stays a number. */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** One cell: neutralised, then quoted when it holds a quote, comma, line break or edge whitespace. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = neutraliseFormula(String(value));
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly CsvValue[]): string {
  return values.map(csvCell).join(',') + CSV_EOL;
}

export interface CsvColumn<Row> {
  key: string;
  value(row: Row): CsvValue;
}

export interface CsvOptions {
  /** Write the header line (first chunk only when exporting in chunks). */
  header?: boolean;
  /** Start with the UTF-8 BOM (first chunk only). */
  bom?: boolean;
  /** Header text per column key; the key itself when absent. */
  labels?: Readonly<Record<string, string>>;
}

export function formatCsv<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[], options: CsvOptions = {}): string {
  let out = options.bom ? CSV_BOM : '';
  if (options.header ?? true) out += csvLine(columns.map((c) => options.labels?.[c.key] ?? c.key));
  for (const row of rows) out += csvLine(columns.map((c) => c.value(row)));
  return out;
}
