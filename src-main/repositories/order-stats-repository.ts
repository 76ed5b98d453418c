import { BEIJING_UTC_OFFSET_SECONDS } from '../../src-shared/beijing-time';
import type { OrderStatus, OrderType } from '../../src-shared/constants';
import type { ReadTx } from '../store/store';

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

// SQLite: the planner is told which index serves the range (it has no statistics, docs/decisions.md).
const BY_DAY = (orders: string) => `SELECT (createtime + ${REPORT_UTC_OFFSET_SECONDS}) / 86400 AS day, order_type, status,
            count(*) AS n, sum(cny_amount) AS amount, sum(merchant_actual_amount) AS actual
     FROM ${orders}
     WHERE merchant_id = @merchantId AND createtime >= @from AND createtime < @to
     GROUP BY 1, order_type, status`;
const BY_DAY_SQLITE = BY_DAY('orders INDEXED BY orders_m_time');
const BY_DAY_POSTGRES = BY_DAY('orders');

/** Aggregates for the dashboard: one grouped range scan of the merchant's time index. */
export function createOrderStatsRepository() {
  return {
    /** Counts and sums per Beijing day × type × status for createtime in [from, to). */
    dayBuckets(tx: ReadTx, merchantId: number, from: number, to: number): Promise<DayBucketRow[]> {
      return tx.all(tx.dialect === 'sqlite' ? BY_DAY_SQLITE : BY_DAY_POSTGRES, { merchantId, from, to });
    },
  };
}
export type OrderStatsRepository = ReturnType<typeof createOrderStatsRepository>;
