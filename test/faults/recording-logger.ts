/** A pino logger that keeps every record in memory, for tests that assert what was logged (and what never was). */
import { pino } from 'pino';
import type { VigilLogger } from '../../src/shared/logger.js';

/** One parsed log line. */
export type LogRecord = Record<string, unknown> & { level: number; msg?: string };

/** pino's level numbers by name. */
export const LEVELS = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A recording logger: `records` holds each line parsed, `text` all of them as written. */
export function recordingLogger(): { log: VigilLogger; records: LogRecord[]; text: () => string } {
  const lines: string[] = [];
  const records: LogRecord[] = [];
  // pino calls write() synchronously with one JSON line per record.
  const log = pino(
    { level: 'debug' },
    {
      write(line: string) {
        lines.push(line);
        records.push(JSON.parse(line) as LogRecord);
      },
    },
  );
  return { log, records, text: () => lines.join('') };
}
