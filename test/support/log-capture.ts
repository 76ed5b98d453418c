/**
 * The listener's log lines as parsed JSON objects, for tests that assert what
 * is (not) logged: pass `logger` to the listener options.
 */
export interface LogCapture {
  logger: { level: string; stream: { write(line: string): void } };
  lines(): Record<string, unknown>[];
  /** Lines at error level or above (pino: error = 50, fatal = 60). */
  errors(): Record<string, unknown>[];
}

export function captureLog(level = 'info'): LogCapture {
  const lines: Record<string, unknown>[] = [];
  return {
    logger: { level, stream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } },
    lines: () => lines,
    errors: () => lines.filter((l) => typeof l.level === 'number' && l.level >= 50),
  };
}
