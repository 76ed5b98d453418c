/** The audit page's filter form model and its translation into the listAuditLog request (list and export alike). */
import { beijingDateRangeToUnix } from '../../../../src-shared/beijing-time';

export interface AuditFilters {
  /** A login name, or `cli` (the machine's administrator). */
  account_login: string;
  action: string | null;
  merchant_id: number | null;
  /** First and last day as YYYY-MM-DD: Beijing calendar days, like the orders page. */
  range: [string, string] | null;
}

export function emptyAuditFilters(): AuditFilters {
  return { account_login: '', action: null, merchant_id: null, range: null };
}

export interface AuditFilterRequest {
  account_login?: string;
  action?: string;
  merchant_id?: number;
  start_time?: number;
  end_time?: number;
}

export function toAuditRequest(f: AuditFilters): AuditFilterRequest {
  const out: AuditFilterRequest = {};
  const login = f.account_login.trim();
  if (login) out.account_login = login;
  const action = f.action?.trim();
  if (action) out.action = action;
  if (f.merchant_id !== null) out.merchant_id = f.merchant_id;
  if (f.range) Object.assign(out, beijingDateRangeToUnix(f.range));
  return out;
}
