/**
 * Pulls every page of the filtered audit trail (keyset: before_id) and
 * assembles the CSV with src-shared's formatter — header and BOM on the first
 * page only — reporting the rows so far after each page and stopping when
 * `signal` fires. The same rules as the order export (export-orders.ts).
 */
import { formatAuditCsv, type AuditCsvOptions } from '../../../../src-shared/csv/audit-csv';
import type { AuditEntryView } from '../../../../src-shared/schemas/accounts';

export type AuditPageFetcher = (beforeId: number | undefined) => Promise<{ list: AuditEntryView[]; next_before_id: number | null }>;

export async function collectAuditCsv(
  fetchPage: AuditPageFetcher,
  onProgress: (done: number) => void,
  options: Pick<AuditCsvOptions, 'actionText' | 'actorText' | 'labels'> = {},
  signal?: AbortSignal,
): Promise<{ csv: string; rows: number }> {
  const parts: string[] = [];
  let beforeId: number | undefined;
  let rows = 0;
  for (let first = true; ; first = false) {
    if (signal?.aborted) throw new DOMException('export cancelled', 'AbortError');
    const page = await fetchPage(beforeId);
    parts.push(formatAuditCsv(page.list, { ...options, header: first, bom: first }));
    rows += page.list.length;
    onProgress(rows);
    if (page.next_before_id === null) break;
    beforeId = page.next_before_id;
  }
  return { csv: parts.join(''), rows };
}
