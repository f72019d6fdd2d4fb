/**
 * Loaded into a benchmarked daemon (`NODE_OPTIONS=--import=<this file>`): times each exchange on the server's side,
 * from the moment the daemon's JavaScript first sees the request to the moment its answer is handed to the socket,
 * so bench 13 can compare /mcp with the WebSocket without either client's cost. Prints what it timed to stderr, one
 * line, when the process exits.
 *
 * - /mcp: from `http.server.request.start` (the request's head parsed; a small POST's body is in the same read) to
 *   `http.server.response.finish` (the whole answer written), for every POST to /mcp.
 * - WebSocket: from the arrival of a frame on an upgraded socket (its `data` event) to the write of the
 *   `agent.reply` event that ends the turn. The frame timed is the last one before the daemon wrote anything (the
 *   `agent.send`, not a `heartbeat.status` answered before it).
 *
 * Plain HTTP sockets are left alone: a `data` listener on one would take its reads away from Node's native parser.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeSync } from 'node:fs';
import { Server } from 'node:http';

/** The stderr line's prefix; the bench finds the line by it. */
export const SERVER_TIMING_PREFIX = 'vigil-bench-server-timing ';
const REPLY_EVENT = '"type":"agent.reply"';

/**
 * Per exchange, in order: its wall-clock ms, and the ms of CPU time the daemon's main thread used meanwhile (the
 * bench sends one request at a time to a daemon that is otherwise idle, so that is the exchange's own, and other
 * processes' load does not add to it).
 * @type {{ mcp: number[]; ws: number[]; mcpCpu: number[]; wsCpu: number[] }}
 */
const samples = { mcp: [], ws: [], mcpCpu: [], wsCpu: [] };
/** @typedef {{ at: number; cpu: NodeJS.CpuUsage }} Start */
/** @type {WeakMap<object, Start>} */
const requestStarts = new WeakMap();

/** @returns {Start} */
const startNow = () => ({ at: performance.now(), cpu: process.threadCpuUsage() });

/** @param {'mcp' | 'ws'} path @param {Start} started */
function record(path, started) {
  const cpu = process.threadCpuUsage(started.cpu);
  samples[path].push(performance.now() - started.at);
  samples[path === 'mcp' ? 'mcpCpu' : 'wsCpu'].push((cpu.user + cpu.system) / 1000);
}

subscribe('http.server.request.start', (message) => {
  const { request } = /** @type {{ request: import('node:http').IncomingMessage }} */ (message);
  if (request.method === 'POST' && request.url?.startsWith('/mcp') === true) {
    requestStarts.set(request, startNow());
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
    if (started === undefined || wroteSince) {
      started = startNow();
      wroteSince = false;
    }
  });
  const write = /** @type {(...args: unknown[]) => unknown} */ (Reflect.get(socket, 'write'));
  /** @type {(chunk: unknown, ...rest: unknown[]) => boolean} */
  const timedWrite = (chunk, ...rest) => {
    if (started !== undefined && isReply(chunk)) {
      record('ws', started);
      started = undefined;
    } else {
      wroteSince = true;
    }
    return /** @type {boolean} */ (Reflect.apply(write, socket, [chunk, ...rest]));
  };
  socket.write = /** @type {typeof socket.write} */ (/** @type {unknown} */ (timedWrite));
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
