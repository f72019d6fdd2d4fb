/** The logger shape Vigil's parts use: pino's, narrowed so tests can pass a silent or recording one. */
import { pino, type Logger } from 'pino';

/** The log methods Vigil calls. */
export type VigilLogger = Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;

/** A pino logger writing JSON lines to stdout at `level`. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { name: 'vigil' }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** A logger that drops everything. */
export const silentLogger: VigilLogger = pino({ level: 'silent' });
