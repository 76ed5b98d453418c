/**
 * Group commit. Every write the HTTP API makes goes through here: jobs that
 * arrive while a commit is in progress are run together, each in its own
 * savepoint, and share one durable commit (one fsync). A job's promise
 * settles only after that commit, so nothing is acknowledged before it is
 * on disk, and one job's failure rolls back only that job.
 */
import type { Database } from 'better-sqlite3';

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface WriteQueue {
  run<T>(fn: () => T): Promise<T>;
  /** Runs what is queued now (tests, shutdown). */
  flush(): void;
  /** Largest batch committed so far (benchmarks report it). */
  readonly stats: { batches: number; jobs: number; largestBatch: number };
}

export function createWriteQueue(db: Database, { maxBatch = 256 } = {}): WriteQueue {
  const pending: Job[] = [];
  let scheduled = false;
  const stats = { batches: 0, jobs: 0, largestBatch: 0 };

  function flush(): void {
    scheduled = false;
    while (pending.length > 0) {
      const batch = pending.length > maxBatch ? pending.splice(0, maxBatch) : pending.splice(0);
      const outcomes: { ok: boolean; value: unknown }[] = [];
      try {
        db.transaction(() => {
          for (const job of batch) {
            try {
              // A nested transaction is a savepoint: a throw undoes this job only.
              outcomes.push({ ok: true, value: db.transaction(job.fn)() });
            } catch (err) {
              outcomes.push({ ok: false, value: err });
              // Some errors (disk full, I/O) make SQLite roll back the whole
              // transaction. Running on would put later jobs in autocommit
              // mode, outside the batch: stop and fail the batch instead.
              if (!db.inTransaction) throw err;
            }
          }
        }).immediate();
      } catch (err) {
        // The commit itself failed (disk full, I/O error): nothing of the batch is stored.
        for (const job of batch) job.reject(err);
        continue;
      }
      stats.batches++;
      stats.jobs += batch.length;
      stats.largestBatch = Math.max(stats.largestBatch, batch.length);
      batch.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value)));
    }
  }

  return {
    run<T>(fn: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          // setImmediate: let every request already read from the sockets join this batch.
          setImmediate(flush);
        }
      });
    },
    flush,
    stats,
  };
}
