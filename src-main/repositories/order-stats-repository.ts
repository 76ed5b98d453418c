import type { Database } from 'better-sqlite3';
import { BEIJING_UTC_OFFSET_SECONDS } from '../../src-shared/beijing-time';
import type { OrderStatus, OrderType } from '../../src-shared/constants';

/** Seconds east of UTC of the day boundaries the console reports in (Beijing). */
export const REPORT_UTC_OFFSET_SECONDS = BEIJING_UTC_OFFSET_SECONDS;

export interface DayBucketRow {
  /** Days since 1970-01-01 in Beijing time. */
  day: number;
  order_type: OrderType;
  status: OrderStatus;
  n: number;
  amount: number;
  actual: number;
}

/** Aggregates for the dashboard: one grouped range scan of the merchant's time index. */
export function createOrderStatsRepository(db: Database) {
  const byDay = db.prepare<{ merchantId: number; from: number; to: number }, DayBucketRow>(
    `SELECT (createtime + ${REPORT_UTC_OFFSET_SECONDS}) / 86400 AS day, order_type, status,
            count(*) AS n, sum(cny_amount) AS amount, sum(merchant_actual_amount) AS actual
     FROM orders INDEXED BY orders_m_time
     WHERE merchant_id = @merchantId AND createtime >= @from AND createtime < @to
     GROUP BY day, order_type, status`,
  );
  return {
    /** Counts and sums per Beijing day × type × status for createtime in [from, to). */
    dayBuckets(merchantId: number, from: number, to: number): DayBucketRow[] {
      return byDay.all({ merchantId, from, to });
    },
  };
}
export type OrderStatsRepository = ReturnType<typeof createOrderStatsRepository>;
