/**
 * Bench 7: one MCP tool call through Vigil (intent synced, events, result) beside a bare SDK client calling the same
 * tool of the same server, in alternating blocks. At most once needs the intent on disk before the call, so the
 * floor for any durable caller is the bare call plus one synced LevelDB batch of the same bytes: measured here too,
 * with the hub alone (Vigil's connection, no log), to say where the time goes.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EventBus } from '../src/events/event-bus.js';
import { systemClock } from '../src/shared/clock.js';
import { silentLogger } from '../src/shared/logger.js';
import { EventJournal } from '../src/subsystems/journal/event-journal.js';
import { openVigilDb, writeSyncBatch } from '../src/subsystems/store/vigil-db.js';
import { DurableToolCaller } from '../src/subsystems/tools/durable-tool-caller.js';
import { McpHub } from '../src/subsystems/tools/mcp-hub.js';
import { ToolCallLog } from '../src/subsystems/tools/tool-call-log.js';
import { median, withTempDir } from './bench-utils.js';
import { ratioCheck, ratioInfo, sanity, type BenchOutcome } from './report.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../test/fixtures/mcp-stdio-server.ts', import.meta.url));
const SERVER = { command: process.execPath, args: ['--import', 'tsx', FIXTURE], cwd: ROOT };

/** How many calls of each kind, after a warm-up, in alternating blocks so drift hits both alike. */
export interface ToolCallOptions {
  warmup: number;
  blocks: number;
  callsPerBlock: number;
}
export const DEFAULT_TOOL_CALL_OPTIONS: ToolCallOptions = { warmup: 50, blocks: 10, callsPerBlock: 50 };

/** Runs bench 7. */
export async function toolCallBench(options: ToolCallOptions = DEFAULT_TOOL_CALL_OPTIONS): Promise<BenchOutcome> {
  return withTempDir('tools', async (dataDir) => {
    const db = await openVigilDb(dataDir);
    const bus = new EventBus({ clock: systemClock, currentBeat: () => 0 });
    const hub = new McpHub({
      servers: { fixture: SERVER },
      bus,
      clock: systemClock,
      log: silentLogger,
      clientVersion: 'bench',
    });
    const bare = new Client({ name: 'bench-bare', version: '1.0.0' });
    try {
      const up = new Promise<void>((resolve) => bus.events$.subscribe((e) => e.type === 'mcp.server_up' && resolve()));
      hub.start();
      await up;
      await bare.connect(new StdioClientTransport(SERVER));
      const journal = new EventJournal(db);
      journal.attach(bus);
      const log = await ToolCallLog.open(db);
      const caller = new DurableToolCaller({ hub, log, journal, bus, clock: systemClock, logger: silentLogger });
      let completed = 0;
      bus.events$.subscribe((e) => {
        if (e.type === 'tool.completed' && e.ok) completed += 1;
      });
      const signal = new AbortController().signal;
      const args = { text: 'hello' };
      const viaVigil = async () => {
        const result = await caller.call({ name: 'mcp__fixture__echo', args, turnId: 'bench' }, signal);
        if (result.isError) throw new Error('the call through Vigil failed');
      };
      const viaSdk = async () => {
        await bare.callTool({ name: 'echo', arguments: args });
      };
      // No signal, as the bare call has none: this compares the connections (launcher, hub, Ajv check). A signal shared
      // by every call would measure something else: the SDK leaves its abort listener on the signal it is handed, so
      // listeners would pile up (one per call) and each add walk them all. The caller gives each call its own.
      const viaHub = async () => {
        await hub.callTool('mcp__fixture__echo', args);
      };
      // The intent's own bytes, synced alone in a sublevel of the same database: the durable part of the floor.
      const floorLevel = db.sublevel<string, unknown>('bench-floor', { valueEncoding: 'json' });
      const intentBytes = {
        callId: `call-${'0'.repeat(36)}`,
        turnId: 'bench',
        name: 'mcp__fixture__echo',
        args,
        at: Date.now(),
        idempotent: false,
      };
      let floorKey = 0;
      const syncedPut = async () => {
        floorKey += 1;
        await writeSyncBatch(db, [
          { type: 'put', sublevel: floorLevel, key: String(floorKey).padStart(16, '0'), value: intentBytes },
        ]);
      };
      const sdkThenSync = async () => {
        await syncedPut();
        await viaSdk();
      };
      // Vigil's block ends once its deferred writes are down (the last result, the journal's queue): they are charged
      // to Vigil, and do not land in the blocks that follow it.
      const settleVigil = async () => {
        await log.settled();
        await journal.flush();
      };
      const perCall = async (call: () => Promise<void>, n: number, settle?: () => Promise<void>) => {
        const start = performance.now();
        for (let i = 0; i < n; i += 1) await call();
        await settle?.();
        return (performance.now() - start) / n;
      };
      await perCall(viaVigil, options.warmup, settleVigil);
      await perCall(viaSdk, options.warmup);
      await perCall(viaHub, options.warmup);
      await perCall(sdkThenSync, options.warmup);
      const vigil: number[] = [];
      const sdk: number[] = [];
      const hubOnly: number[] = [];
      const floor: number[] = [];
      for (let b = 0; b < options.blocks; b += 1) {
        vigil.push(await perCall(viaVigil, options.callsPerBlock, settleVigil));
        sdk.push(await perCall(viaSdk, options.callsPerBlock));
        hubOnly.push(await perCall(viaHub, options.callsPerBlock));
        floor.push(await perCall(sdkThenSync, options.callsPerBlock));
      }
      await journal.detach();
      const vigilMs = median(vigil);
      const sdkMs = median(sdk);
      const hubMs = median(hubOnly);
      const floorMs = median(floor);
      const expected = options.warmup + options.blocks * options.callsPerBlock;
      return {
        id: 'tool-call',
        title: '7. MCP tool call',
        checks: [
          ratioCheck(
            'tool-call-ratio',
            'one tool call through Vigil (intent synced, events, result) / a bare SDK call',
            { value: vigilMs, unit: 'ms', what: 'per call, DurableToolCaller → McpHub → stdio server (median block)' },
            {
              value: sdkMs,
              unit: 'ms',
              what: 'per call, @modelcontextprotocol/sdk Client → the same server command (median block)',
            },
            '<=',
            1.2,
          ),
          ratioCheck(
            'tool-call-floor-ratio',
            'one tool call through Vigil / the durable floor: one synced LevelDB batch of the intent, then a bare SDK call',
            { value: vigilMs, unit: 'ms', what: 'per call through Vigil (median block)' },
            {
              value: floorMs,
              unit: 'ms',
              what: 'per call, synced put of the same intent bytes + bare SDK call (median block)',
            },
            '<=',
            1.2,
          ),
          ratioInfo(
            'tool-call-hub-ratio',
            "the hub alone (Vigil's connection under its launcher, no log) / a bare SDK call",
            { value: hubMs, unit: 'ms', what: 'per call, McpHub.callTool (median block)' },
            { value: sdkMs, unit: 'ms', what: 'per call, bare SDK (median block)' },
          ),
        ],
        details: [
          { label: 'one synced LevelDB batch + bare SDK call − bare SDK call', value: floorMs - sdkMs, unit: 'ms' },
        ],
        sanity: [
          sanity(
            'every call through Vigil completed',
            completed === expected,
            `${completed} of ${expected} tool.completed ok`,
          ),
        ],
        notes: [
          'At most once needs the intent on disk before the call, so every call through Vigil waits for one fsynced LevelDB batch (its intent with its tool.called journal entry) before the server sees it. That fsync alone (the detail above) costs more than the whole bare SDK call, so the ratio to a bare SDK call cannot reach 1.2× for any caller that keeps the guarantee; it is reported as measured. The floor ratio is the fair one: Vigil against the same bare call plus one synced batch of the same intent bytes.',
          "The result is written after the call returns, unsynced, in the log's next batch: back to back, a call's result shares the fsync of the next call's intent, so a call costs one LevelDB batch, not two. LevelDB syncs with fdatasync already, and the intent batch holds only what must be durable, so nothing of the fsync itself is left to cut.",
          "The hub ratio is the launcher's new session, not its code: the server inherits the daemon's pipes (no relay, no extra hop), and Vigil's own work per call is a few microseconds. But the launcher starts the server detached (setsid, so one kill reaches its whole process group), and on Linux with kernel.sched_autogroup_enabled a new session is a scheduling group of its own: on a machine busy with other sessions it waits longer for a CPU after each request. Quiet, the hub measures as the bare client; a launcher without setsid measures as the bare client under load too.",
        ],
      };
    } finally {
      await bare.close().catch(() => undefined);
      await hub.stop();
      await db.close();
    }
  });
}
