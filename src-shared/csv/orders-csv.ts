/**
 * The orders CSV of the console export: one line per order, amounts in yuan
 * (two decimals), times as Beijing wall-clock text. The console fetches the
 * rows in chunks (exportOrders) and formats each chunk with this function,
 * header and BOM on the first chunk only.
 */
import { formatBeijingTime } from '../beijing-time';
import { formatFen } from '../money';
import type { OrderExportRow } from '../schemas/console';
import { formatCsv, type CsvColumn, type CsvOptions } from './csv';

export interface OrdersCsvOptions extends CsvOptions {
  /** Text of an order type / status (localised by the UI); the raw value when absent. */
  typeText?: (orderType: 1 | 2) => string;
  statusText?: (status: string) => string;
}

export function orderCsvColumns(options: Pick<OrdersCsvOptions, 'typeText' | 'statusText'> = {}): CsvColumn<OrderExportRow>[] {
  const fen = (pick: (r: OrderExportRow) => number) => (r: OrderExportRow) => formatFen(pick(r));
  return [
    { key: 'order_no', value: (r) => r.order_no },
    { key: 'order_type', value: (r) => (options.typeText ? options.typeText(r.order_type) : r.order_type) },
    { key: 'status', value: (r) => (options.statusText ? options.statusText(r.status) : r.status) },
    { key: 'pay_method', value: (r) => r.pay_method },
    { key: 'channel_name', value: (r) => r.channel_name },
    { key: 'cny_amount', value: (r) => r.cny_amount },
    { key: 'merchant_actual_amount', value: fen((r) => r.merchant_actual_amount) },
    { key: 'service_rate', value: (r) => r.service_rate },
    { key: 'service_amount', value: fen((r) => r.service_amount) },
    { key: 'passage_rate', value: (r) => r.passage_rate },
    { key: 'passage_amount', value: fen((r) => r.passage_amount) },
    { key: 'deposit_rate', value: (r) => r.deposit_rate },
    { key: 'deposit_amount', value: fen((r) => r.deposit_amount) },
    { key: 'base_rate', value: (r) => r.base_rate },
    { key: 'channel_amount', value: fen((r) => r.channel_amount) },
    { key: 'customer_name', value: (r) => r.customer_name },
    { key: 'createtime', value: (r) => formatBeijingTime(r.createtime) },
    { key: 'updatetime', value: (r) => formatBeijingTime(r.updatetime) },
  ];
}

export function formatOrdersCsv(rows: readonly OrderExportRow[], options: OrdersCsvOptions = {}): string {
  return formatCsv(orderCsvColumns(options), rows, options);
}
