/** The orders page's filter form model and its translation into the list/export request. */
import type { OrderStatus, OrderType } from '../../../../src-shared/constants';
import { beijingDateRangeToUnix } from '../../../../src-shared/beijing-time';

export interface OrderFilters {
  status: OrderStatus | null;
  order_type: OrderType | null;
  /**
   * First and last day as YYYY-MM-DD (NDatePicker daterange's formatted value):
   * Beijing calendar days, so the viewer's own zone plays no part.
   */
  range: [string, string] | null;
  order_no: string;
}

export function emptyOrderFilters(): OrderFilters {
  return { status: null, order_type: null, range: null, order_no: '' };
}

export interface OrderFilterRequest {
  status?: OrderStatus;
  order_type?: OrderType;
  start_time?: number;
  end_time?: number;
  order_no?: string;
}

export function toFilterRequest(f: OrderFilters): OrderFilterRequest {
  const out: OrderFilterRequest = {};
  if (f.status) out.status = f.status;
  if (f.order_type) out.order_type = f.order_type;
  if (f.range) Object.assign(out, beijingDateRangeToUnix(f.range));
  const no = f.order_no.trim();
  if (no) out.order_no = no;
  return out;
}
