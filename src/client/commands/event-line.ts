/**
 * `vigil events` on a terminal: one short line per event (`12:00:03  #42  goal.updated  goalId=g-1 progress=0.9`),
 * and which events a terminal shows (no `heartbeat.beat` unless asked for). Pure; piped, the feed stays JSON lines.
 */
import type { FeedEvent } from '../client-core.js';

// A terminal line: long enough for an event's gist, short enough not to wrap into a wall of text.
const MAX_LINE = 160;
const MAX_VALUE = 80;
const ENVELOPE = new Set(['seq', 'type', 'at', 'beat']);
const BEAT = 'heartbeat.beat';

// Model, user and server text is not ours: no control character of it reaches the operator's terminal.
const clean = (text: string): string => text.replace(/\p{Cc}/gu, ' ');

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A payload value as `key=value` shows it: strings quoted only when they hold spaces, the rest as compact JSON. */
function showValue(value: unknown): string {
  if (typeof value === 'string') {
    const text = cut(clean(value), MAX_VALUE);
    return /[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text;
  }
  return cut(clean(JSON.stringify(value) ?? String(value)), MAX_VALUE);
}

/** The time of day of `at` in `timeZone` (default: this machine's), `HH:MM:SS`. */
function timeOfDay(at: string, timeZone: string | undefined): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return clean(at);
  return date.toLocaleTimeString('en-GB', { hour12: false, ...(timeZone === undefined ? {} : { timeZone }) });
}

/** What a beat says in a line: its number, interval and phase times. */
function beatGist(event: Extract<FeedEvent, { type: 'heartbeat.beat' }>): string {
  const { sense, think, integrate } = event.phaseMs;
  return `beat ${event.beatCount}  every ${event.intervalMs} ms  sense ${sense} think ${think} integrate ${integrate} ms`;
}

/** The payload of `event` as `key=value` pairs, in its own order. */
function payloadGist(event: FeedEvent): string {
  return Object.entries(event)
    .filter(([key, value]) => !ENVELOPE.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${showValue(value)}`)
    .join(' ');
}

/** One event as one terminal line: time of day, `#seq` (live events have none), type and the payload's gist. */
export function formatEventLine(event: FeedEvent, timeZone?: string): string {
  const seq = 'seq' in event ? `#${event.seq}` : 'live';
  const gist = event.type === 'heartbeat.beat' ? beatGist(event) : payloadGist(event);
  const line = [timeOfDay(event.at, timeZone), seq, event.type, gist].filter((part) => part !== '').join('  ');
  return cut(line, MAX_LINE);
}

/**
 * Whether a terminal shows `heartbeat.beat` (four a second would bury everything else): only when asked for, with
 * `--beats` or a `--types` that names it (`heartbeat.beat`, `heartbeat.*`, `*`).
 */
export function showsBeats(types: readonly string[] | undefined, beats: boolean): boolean {
  // CONTRACT §4's filter rule (src/events/event-filter.ts, a floor the client does not import): exact or `prefix*`.
  const names = (pattern: string): boolean =>
    pattern.endsWith('*') ? BEAT.startsWith(pattern.slice(0, -1)) : pattern === BEAT;
  return beats || (types?.some(names) ?? false);
}
