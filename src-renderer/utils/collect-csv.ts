/**
 * Pulls every page of a CSV export (keyset cursor: the orders' export chunks,
 * the audit trail's before_id pages) and joins the text — the formatter puts
 * header and BOM on the first page only — reporting progress after each page
 * and stopping with an AbortError when `signal` fires.
 */
export interface CsvPage<C> {
  csv: string;
  rows: number;
  /** Where the next page starts, or null at the end. */
  next: C | null;
}

export async function collectCsv<P, C>(
  fetchPage: (cursor: C | undefined) => Promise<P>,
  read: (page: P, first: boolean) => CsvPage<C>,
  onProgress: (rows: number, page: P) => void,
  signal?: AbortSignal,
): Promise<{ csv: string; rows: number }> {
  const parts: string[] = [];
  let cursor: C | undefined;
  let rows = 0;
  for (let first = true; ; first = false) {
    if (signal?.aborted) throw new DOMException('export cancelled', 'AbortError');
    const page = await fetchPage(cursor);
    const part = read(page, first);
    parts.push(part.csv);
    rows += part.rows;
    onProgress(rows, page);
    if (part.next === null) break;
    cursor = part.next;
  }
  return { csv: parts.join(''), rows };
}
