/**
 * The audit-trail CSV of the console export, with the order export's rules
 * (csv.ts: neutralised cells, UTF-8 BOM, CRLF): one line per entry, newest
 * first as listAuditLog pages them, times as Beijing wall-clock text, the
 * before/after values as compact JSON (secrets already redacted by the
 * service), the chain hash last so a copy can be compared with `audit verify`.
 * The console fetches pages (before_id) and formats each with this function,
 * header and BOM on the first page only.
 */
import { formatBeijingTime } from '../beijing-time';
import type { AuditEntryView } from '../schemas/accounts';
import { formatCsv, type CsvColumn, type CsvOptions, type CsvValue } from './csv';

export interface AuditCsvOptions extends CsvOptions {
  /** Text of an action / actor kind (localised by the UI); the raw value when absent. */
  actionText?: (action: string) => string;
  actorText?: (kind: AuditEntryView['actor_kind']) => string;
}

/** A JSON value as one cell: compact JSON, empty when there is none. */
function jsonCell(value: unknown): CsvValue {
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

export function auditCsvColumns(options: Pick<AuditCsvOptions, 'actionText' | 'actorText'> = {}): CsvColumn<AuditEntryView>[] {
  return [
    { key: 'id', value: (r) => r.id },
    { key: 'at', value: (r) => formatBeijingTime(r.at) },
    { key: 'actor_kind', value: (r) => (options.actorText ? options.actorText(r.actor_kind) : r.actor_kind) },
    { key: 'account_login', value: (r) => r.account_login },
    { key: 'role', value: (r) => r.role },
    { key: 'address', value: (r) => r.address },
    { key: 'user_agent', value: (r) => r.user_agent },
    { key: 'action', value: (r) => (options.actionText ? options.actionText(r.action) : r.action) },
    { key: 'target', value: (r) => r.target },
    { key: 'merchant_id', value: (r) => r.merchant_id },
    { key: 'before', value: (r) => jsonCell(r.before) },
    { key: 'after', value: (r) => jsonCell(r.after) },
    { key: 'hash', value: (r) => r.hash },
  ];
}

export function formatAuditCsv(rows: readonly AuditEntryView[], options: AuditCsvOptions = {}): string {
  return formatCsv(auditCsvColumns(options), rows, options);
}
