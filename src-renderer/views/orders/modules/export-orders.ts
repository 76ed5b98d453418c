/**
 * Pulls every chunk of an order export (keyset cursor) and assembles the CSV
 * with src-shared's formatter — header and BOM on the first chunk only —
 * reporting progress after each chunk and stopping when `signal` fires.
 */
import { formatOrdersCsv, type OrdersCsvOptions } from '../../../../src-shared/csv/orders-csv';
import type { OrderExportChunkView } from '../../../../src-shared/schemas/console';

export type ExportChunkFetcher = (cursor: string | undefined) => Promise<OrderExportChunkView>;

export async function collectOrdersCsv(
  fetchChunk: ExportChunkFetcher,
  onProgress: (done: number, total: number) => void,
  options: Pick<OrdersCsvOptions, 'typeText' | 'statusText' | 'labels'> = {},
  signal?: AbortSignal,
): Promise<{ csv: string; rows: number }> {
  const parts: string[] = [];
  let cursor: string | undefined;
  let rows = 0;
  for (let first = true; ; first = false) {
    if (signal?.aborted) throw new DOMException('export cancelled', 'AbortError');
    const chunk = await fetchChunk(cursor);
    parts.push(formatOrdersCsv(chunk.rows, { ...options, header: first, bom: first }));
    rows += chunk.rows.length;
    onProgress(chunk.exported, Math.max(chunk.total, chunk.exported));
    if (chunk.next_cursor === null) break;
    cursor = chunk.next_cursor;
  }
  return { csv: parts.join(''), rows };
}
