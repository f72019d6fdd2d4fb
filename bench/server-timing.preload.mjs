/**
 * Loaded into a benchmarked daemon (`NODE_OPTIONS=--import=<this file>`): times each exchange on the server's side,
 * from the moment the daemon's JavaScript first sees the request to the moment its answer is handed to the socket,
 * so bench 13 can compare /mcp with the WebSocket without either client's cost. Prints what it timed to stderr, one
 * line, when the process exits.
 *
 * - /mcp: from `http.server.request.start` (the request's head parsed; a small POST's body is in the same read) to
 *   `http.server.response.finish` (the whole answer written), for every POST to /mcp.
 * - WebSocket: from the arrival of a frame on an upgraded socket (its `data` event) to the return of the write of the
 *   `agent.reply` event that ends the turn (the event handed to the socket, as `finish` says of /mcp's answer). The
 *   frame timed is the last one before the daemon wrote anything (the `agent.send`, not a `heartbeat.status` answered
 *   before it).
 *
 * The CPU time of the daemon's main thread is read at each start and end: from `/proc/thread-self/schedstat` where
 * there is one (Linux: the scheduler's own count, to the nanosecond, the running slice included), else
 * `process.threadCpuUsage()`, which on Linux counts only up to the thread's last tick or sleep: a window read with it
 * missed the work since then (up to a millisecond), so what one exchange did after its last wait was counted to the next.
 *
 * Plain HTTP sockets are left alone: a `data` listener on one would take its reads away from Node's native parser.
 */
import { subscribe } from 'node:diagnostics_channel';
import { openSync, readSync, writeSync } from 'node:fs';
import { Server } from 'node:http';

/** The stderr line's prefix; the bench finds the line by it. */
export const SERVER_TIMING_PREFIX = 'vigil-bench-server-timing ';
const REPLY_EVENT = '"type":"agent.reply"';

/**
 * Per exchange, in order: its wall-clock ms, the ms of CPU time the daemon's main thread used meanwhile (the bench
 * sends one request at a time to a daemon that is otherwise idle, so that is the exchange's own, and other processes'
 * load does not add to it), and the thread's CPU ms so far at its start: from one start to the next is all a call cost
 * the daemon, the work it goes on with after the answer (the rest of the turn's beat) included.
 * @type {{ mcp: number[]; ws: number[]; mcpCpu: number[]; wsCpu: number[]; mcpStartCpu: number[]; wsStartCpu: number[] }}
 */
const samples = { mcp: [], ws: [], mcpCpu: [], wsCpu: [], mcpStartCpu: [], wsStartCpu: [] };
/** @typedef {{ at: number; cpu: number }} Start */
/** @type {WeakMap<object, Start>} */
const requestStarts = new WeakMap();

/** The main thread's CPU ms so far. */
const threadCpuMs =
  schedstatReader() ??
  (() => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  });

/** @returns {(() => number) | undefined} */
function schedstatReader() {
  /** @type {number} */
  let fd;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return undefined;
  }
  const buffer = Buffer.alloc(128);
  // The first field: nanoseconds on a CPU. Read again at offset 0 through the same descriptor, so it stays this thread's.
  return () => {
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.toString('latin1', 0, read);
    return Number(text.slice(0, text.indexOf(' '))) / 1e6;
  };
}

/** @param {'mcp' | 'ws'} path @returns {Start} */
function startNow(path) {
  const started = { at: performance.now(), cpu: threadCpuMs() };
  samples[path === 'mcp' ? 'mcpStartCpu' : 'wsStartCpu'].push(started.cpu);
  return started;
}

/** @param {'mcp' | 'ws'} path @param {Start} started */
function record(path, started) {
  const cpu = threadCpuMs() - started.cpu;
  samples[path].push(performance.now() - started.at);
  samples[path === 'mcp' ? 'mcpCpu' : 'wsCpu'].push(cpu);
}

subscribe('http.server.request.start', (message) => {
  const { request } = /** @type {{ request: import('node:http').IncomingMessage }} */ (message);
  if (request.method === 'POST' && request.url?.startsWith('/mcp') === true) {
    requestStarts.set(request, startNow('mcp'));
  }
});

subscribe('http.server.response.finish', (message) => {
  const { request } = /** @type {{ request: import('node:http').IncomingMessage }} */ (message);
  const started = requestStarts.get(request);
  if (started !== undefined) record('mcp', started);
});

/** @param {import('node:stream').Duplex} socket */
function timeWebSocket(socket) {
  /** @type {Start | undefined} */
  let started;
  let wroteSince = false;
  socket.prependListener('data', () => {
    if (started !== undefined && !wroteSince) return;
    // A frame the daemon answered (heartbeat.status) started a window the next frame replaces: its start is dropped.
    if (started !== undefined) samples.wsStartCpu.pop();
    started = startNow('ws');
    wroteSince = false;
  });
  const write = /** @type {(...args: unknown[]) => unknown} */ (Reflect.get(socket, 'write'));
  /** @type {(chunk: unknown, ...rest: unknown[]) => boolean} */
  const timedWrite = (chunk, ...rest) => {
    const ends = started !== undefined && isReply(chunk);
    const written = /** @type {boolean} */ (Reflect.apply(write, socket, [chunk, ...rest]));
    if (ends && started !== undefined) {
      record('ws', started);
      started = undefined;
    } else {
      wroteSince = true;
    }
    return written;
  };
  socket.write = /** @type {typeof socket.write} */ (/** @type {unknown} */ (timedWrite));
  // A frame still unanswered by a turn's reply when the connection ends (the last events.unsubscribe) started nothing.
  socket.once('close', () => {
    if (started !== undefined) samples.wsStartCpu.pop();
    started = undefined;
  });
}

/** @param {unknown} chunk */
function isReply(chunk) {
  if (typeof chunk === 'string') return chunk.includes(REPLY_EVENT);
  return (
    chunk instanceof Uint8Array && Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).includes(REPLY_EVENT)
  );
}

// The upgrade hands the socket over from the HTTP parser to `ws`, which reads it through `data` events.
const emit = /** @type {(...args: unknown[]) => boolean} */ (Reflect.get(Server.prototype, 'emit'));
/** @type {(this: Server, event: string | symbol, ...args: unknown[]) => boolean} */
function timedEmit(event, ...args) {
  if (event === 'upgrade') timeWebSocket(/** @type {import('node:stream').Duplex} */ (args[1]));
  return /** @type {boolean} */ (Reflect.apply(emit, this, [event, ...args]));
}
Server.prototype.emit = timedEmit;

process.on('exit', () => {
  writeSync(2, `${SERVER_TIMING_PREFIX}${JSON.stringify(samples)}\n`);
});
