/**
 * request.log made on first use (Fastify's childLoggerFactory). Fastify's
 * own factory makes a pino child for every request, its bindings serialised
 * at once: about a µs of a list request in a serving process
 * (docs/benchmarks.md, "Afternoon on 2026-11-30"), where at the default level
 * (warn) almost no request logs. The child is made with the same bindings
 * and options when the request first logs at an enabled level, so its lines
 * are the same.
 */
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
/** A log call's arguments as pino takes them (an object and/or a message, then format arguments). */
type LogArgs = unknown[];

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** What a pino logger answers besides FastifyBaseLogger (Fastify's null logger has neither). */
interface LevelAware {
  isLevelEnabled(level: string): boolean;
}

function isLevelAware(logger: FastifyBaseLogger): logger is FastifyBaseLogger & LevelAware {
  return typeof (logger as Partial<LevelAware>).isLevelEnabled === 'function';
}

class LazyRequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger & LevelAware,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private made(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  private write(level: Level, args: LogArgs): void {
    // A level the parent does not log makes no child: most requests end here or never log at all.
    if (this.#child === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.made()[level] as (...a: LogArgs) => void)(...args);
  }

  get level(): string {
    return this.#child ? this.#child.level : this.parent.level;
  }

  set level(level: string) {
    this.made().level = level;
  }

  fatal(...args: LogArgs): void {
    this.write('fatal', args);
  }
  error(...args: LogArgs): void {
    this.write('error', args);
  }
  warn(...args: LogArgs): void {
    this.write('warn', args);
  }
  info(...args: LogArgs): void {
    this.write('info', args);
  }
  debug(...args: LogArgs): void {
    this.write('debug', args);
  }
  trace(...args: LogArgs): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made().child(bindings, options);
  }
}

/**
 * Fastify's childLoggerFactory. A route's own log level or serializers, or a
 * logger that cannot say which levels it logs, get pino's child at once, as
 * with Fastify's default.
 */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined || !isLevelAware(logger)) return logger.child(bindings, options);
  return new LazyRequestLogger(logger, bindings, options);
}
