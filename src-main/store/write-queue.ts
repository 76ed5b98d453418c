/**
 * Group commit. Every write the HTTP API makes goes through here: jobs that
 * arrive while a commit is in progress are run together, each in its own
 * savepoint, and share one durable commit (one fsync). A job's promise
 * settles only after that commit, so nothing is acknowledged before it is
 * on disk, and one job's failure rolls back only that job.
 *
 * A job may say it needs no fsync (`{ durable: false }`: the nonce of a
 * read-only request, docs/benchmarks.md). A batch made only of such jobs
 * commits with synchronous=NORMAL: still atomic and consistent, and safe
 * from a crash of the process (the WAL is written before the commit
 * returns), but only on the disk after the next FULL commit or checkpoint,
 * so an OS crash or power cut may forget it. Any batch with one durable job
 * is a FULL commit, which also makes every earlier NORMAL commit durable.
 * The connection is back at FULL as soon as the batch is committed.
 */
import type { Database } from 'better-sqlite3';

interface Job {
  fn: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface WriteQueue {
  run<T>(fn: () => T, options?: { durable?: boolean }): Promise<T>;
  /** Runs what is queued now (tests, shutdown). */
  flush(): void;
  /** Largest batch committed so far (benchmarks report it). */
  readonly stats: { batches: number; jobs: number; largestBatch: number; normalCommits: number };
}

export function createWriteQueue(db: Database, { maxBatch = 256 } = {}): WriteQueue {
  const pending: Job[] = [];
  let scheduled = false;
  const stats = { batches: 0, jobs: 0, largestBatch: 0, normalCommits: 0 };

  function flush(): void {
    scheduled = false;
    while (pending.length > 0) {
      const batch = pending.length > maxBatch ? pending.splice(0, maxBatch) : pending.splice(0);
      const outcomes: { ok: boolean; value: unknown }[] = [];
      const relaxed = !batch.some((job) => job.durable);
      if (relaxed) db.pragma('synchronous = NORMAL');
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
      } finally {
        // Every other write on this connection stays durable.
        if (relaxed) db.pragma('synchronous = FULL');
      }
      if (relaxed) stats.normalCommits++;
      stats.batches++;
      stats.jobs += batch.length;
      stats.largestBatch = Math.max(stats.largestBatch, batch.length);
      batch.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value)));
    }
  }

  return {
    run<T>(fn: () => T, options: { durable?: boolean } = {}): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ fn, durable: options.durable !== false, resolve: resolve as (v: unknown) => void, reject });
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
