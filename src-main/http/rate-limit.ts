/**
 * Request rate limits of the listener (docs/api.md, "Rate limits"): a token
 * bucket per client address over every request of the listener (merchant,
 * region and pay-page routes alike), and one per api_key over merchant
 * requests whose signature verified, so nobody can use up a merchant's
 * quota with the public api_key alone. A rule `N/period` allows a burst of
 * N and refills continuously at N per period. Over the limit: HTTP 429,
 * code RATE_LIMITED, a Retry-After header in whole seconds.
 */
import { AppError, ErrorCode } from '../../src-shared/errors';

export interface RateLimitRule {
  /** Burst size and requests per period. */
  limit: number;
  periodSeconds: number;
}

export interface RateLimitConfig {
  perApiKey: RateLimitRule | null;
  perAddress: RateLimitRule | null;
}

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  perApiKey: { limit: 100, periodSeconds: 1 },
  perAddress: { limit: 200, periodSeconds: 1 },
};

export const RATE_LIMITS_OFF: RateLimitConfig = { perApiKey: null, perAddress: null };

/** Settings key holding `{per_api_key, per_address}` rule texts (serve flags win). */
export const RATE_LIMIT_SETTINGS_KEY = 'rate_limits';

const PERIODS: Record<string, number> = { s: 1, sec: 1, m: 60, min: 60, h: 3600 };

/** `off`, `N` (per second), `N/s`, `N/min` (or `N/m`), `N/h`. */
export function parseRateLimitRule(text: string): RateLimitRule | null {
  const t = text.trim().toLowerCase();
  if (t === 'off' || t === '0') return null;
  const m = /^([1-9][0-9]{0,8})(?:\/(s|sec|m|min|h))?$/.exec(t);
  if (!m) throw new Error(`rate limit ${JSON.stringify(text)} must be off, N, N/s, N/min or N/h`);
  return { limit: Number(m[1]), periodSeconds: PERIODS[m[2] ?? 's']! };
}

export function formatRateLimitRule(rule: RateLimitRule | null): string {
  if (!rule) return 'off';
  const unit = rule.periodSeconds === 1 ? 's' : rule.periodSeconds === 60 ? 'min' : rule.periodSeconds === 3600 ? 'h' : `${rule.periodSeconds}s`;
  return `${rule.limit}/${unit}`;
}

export interface RateLimiter {
  /** Takes one token for `key`; throws the 429 AppError when there is none. */
  take(key: string): void;
  /** Gives back a token `take` took for a request that then turned out not to count (up to the limit). */
  giveBack(key: string): void;
  /** Keys currently tracked (tests: memory stays bounded). */
  readonly size: number;
}

interface Bucket {
  tokens: number;
  /** performance.now() of the last refill, ms. */
  at: number;
}

/** Above this many tracked keys, full (idle) buckets are dropped, then the oldest. */
const MAX_KEYS = 50_000;

export function createRateLimiter(rule: RateLimitRule, scope: 'api_key' | 'client address', now: () => number = () => performance.now()): RateLimiter {
  const perMs = rule.limit / (rule.periodSeconds * 1000);
  const buckets = new Map<string, Bucket>();

  function prune(t: number): void {
    for (const [key, b] of buckets) {
      if (b.tokens + (t - b.at) * perMs >= rule.limit) buckets.delete(key);
    }
    // Still too many (a flood of distinct keys): forget the oldest half.
    if (buckets.size > MAX_KEYS / 2) {
      let drop = buckets.size - MAX_KEYS / 2;
      for (const key of buckets.keys()) {
        if (drop-- <= 0) break;
        buckets.delete(key);
      }
    }
  }

  return {
    take(key) {
      const t = now();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= MAX_KEYS) prune(t);
        b = { tokens: rule.limit, at: t };
        buckets.set(key, b);
      } else {
        b.tokens = Math.min(rule.limit, b.tokens + (t - b.at) * perMs);
        b.at = t;
      }
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return;
      }
      const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
      throw new AppError(ErrorCode.RATE_LIMITED, `too many requests for this ${scope}: at most ${formatRateLimitRule(rule)}; retry after ${retryAfter} s`, {
        retryAfter,
      });
    },
    giveBack(key) {
      const b = buckets.get(key);
      if (b) b.tokens = Math.min(rule.limit, b.tokens + 1);
    },
    get size() {
      return buckets.size;
    },
  };
}
