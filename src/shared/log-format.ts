/**
 * Log lines for a person at a terminal: pino's JSON line turned into `12:00:03.120 INFO  gateway listening url=…`.
 * Pipes and files keep the JSON (CONTRACT §2); this is only for a stdout that is a terminal. Pure.
 */

const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
// ANSI colours by level: errors red, warnings yellow, info green, the chatty levels dim.
const LEVEL_COLOURS: Readonly<Record<number, string>> = { 10: '2', 20: '2', 30: '32', 40: '33', 50: '31', 60: '1;31' };
// Fields every line has, or that say nothing to a person reading one daemon's output.
const SHOWN_ELSEWHERE = new Set(['level', 'time', 'msg', 'name', 'pid', 'hostname']);

/** How to render. */
export interface LogFormatOptions {
  /** ANSI colours (a terminal that has not asked for NO_COLOR). */
  colour: boolean;
}

function paint(text: string, code: string | undefined, on: boolean): string {
  return on && code !== undefined ? `\u001b[${code}m${text}\u001b[0m` : text;
}

function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** One pino JSON line (with or without its newline) as one human line (plus an error's stack below it), ending in a newline. */
export function formatLogLine(line: string, options: LogFormatOptions): string {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return line.endsWith('\n') ? line : `${line}\n`;
    record = parsed as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = typeof record['level'] === 'number' ? record['level'] : 30;
  const time = typeof record['time'] === 'string' ? record['time'].slice(11, 23) : '';
  const label = (LEVEL_NAMES[level] ?? String(level)).padEnd(5);
  const parts = [
    time,
    paint(label, LEVEL_COLOURS[level], options.colour),
    typeof record['msg'] === 'string' ? record['msg'] : '',
  ];
  let stack = '';
  for (const [key, value] of Object.entries(record)) {
    if (SHOWN_ELSEWHERE.has(key) || value === undefined) continue;
    // pino serialises an Error as {type, message, stack}: the message inline, the stack on the lines below.
    if (typeof value === 'object' && value !== null && typeof (value as { stack?: unknown }).stack === 'string') {
      const { message, stack: trace } = value as { message?: unknown; stack: string };
      parts.push(`${key}=${fieldValue(message ?? '')}`);
      stack = `\n${trace.replace(/^/gm, '    ')}`;
      continue;
    }
    parts.push(paint(`${key}=`, '2', options.colour) + fieldValue(value));
  }
  return `${parts.filter((p) => p !== '').join(' ')}${stack}\n`;
}
