/** The logger shape Vigil's parts use: pino's, narrowed so tests can pass a silent or recording one. */
import { pino, type DestinationStream, type Logger } from 'pino';
import { formatLogLine } from './log-format.js';

/** The log methods Vigil calls. */
export type VigilLogger = Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;

/** How log lines look: JSON (the default, for pipes and collectors) or human lines for a terminal. */
export interface LoggerFormat {
  /** Human-readable lines (`formatLogLine`) instead of JSON. */
  pretty?: boolean;
  /** ANSI colours in the human lines. */
  colour?: boolean;
}

/** A pino logger writing to stdout at `level`: JSON lines, or human ones when `format.pretty`. */
export function createLogger(level: string, format: LoggerFormat = {}): Logger {
  const options = { level, base: { name: 'vigil' }, timestamp: pino.stdTimeFunctions.isoTime };
  if (format.pretty !== true) return pino(options);
  const colour = format.colour === true;
  // pino hands a destination each whole line; a terminal's stdout writes synchronously, so order is kept.
  const terminal: DestinationStream = {
    write: (line: string) => void process.stdout.write(formatLogLine(line, { colour })),
  };
  return pino(options, terminal);
}

/** A logger that drops everything. */
export const silentLogger: VigilLogger = pino({ level: 'silent' });
