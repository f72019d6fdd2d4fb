/**
 * A boot that fails at any phase leaves nothing behind: no subscription on the host's bus, no timer on the clock, no
 * open LevelDB (a new runtime opens the same data dir), no MCP server process, and the events it journaled are
 * written. The failure is injected through the boot's probe after each phase (every acquisition of that phase and
 * the ones before it made), and for real: a wrong VIGIL_CHECKPOINT_KEY, an identity file that is not there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Observable } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import type { VigilConfig } from '../../src/config.js';
import { VigilError } from '../../src/errors.js';
import { EventBus } from '../../src/events/event-bus.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { BOOT_PHASES, type BootPhase } from '../../src/runtime/boot-phase.js';
import { bootRuntime, createRuntime } from '../../src/runtime/create-runtime.js';
import type { RuntimeOptions } from '../../src/runtime/runtime-options.js';
import { createSimulatedClock, type Clock } from '../../src/shared/clock.js';
import { VigilMetrics } from '../../src/subsystems/metrics/vigil-metrics.js';
import { isAlive, stdioFixture } from '../subsystems/tools/mcp-hub.fixture.js';
import { useCleanups } from './runtime-tools.fixture.js';

const { cleanups, tempDir } = useCleanups('vigil-failed-start-');

/** A simulated clock that knows which of its timers are still set. */
function countingClock(): { clock: Clock & { increment(ms: number): void }; pending: Set<unknown> } {
  const inner = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
  const pending = new Set<unknown>();
  const clock = {
    now: () => inner.now(),
    increment: (ms: number) => inner.increment(ms),
    setTimeout(fn: () => void, ms: number): unknown {
      const handle: unknown = inner.setTimeout(() => {
        pending.delete(handle);
        fn();
      }, ms);
      pending.add(handle);
      return handle;
    },
    clearTimeout(handle: unknown): void {
      pending.delete(handle);
      inner.clearTimeout(handle);
    },
  };
  return { clock, pending };
}

/** Counts the live subscriptions to `bus.events$` (and so to `select`, built on it) from now on. */
function countSubscriptions(bus: EventBus): () => number {
  const inner = bus.events$;
  let live = 0;
  const counted = new Observable<VigilEvent>((subscriber) => {
    live += 1;
    const subscription = inner.subscribe(subscriber);
    return () => {
      live -= 1;
      subscription.unsubscribe();
    };
  });
  Object.defineProperty(bus, 'events$', { value: counted });
  return () => live;
}

/** The host side of one boot: its data dir, clock, bus and MCP server's pid file. */
function host(config: Partial<VigilConfig> = {}) {
  const dir = tempDir();
  const pidFile = join(dir, 'mcp-pids');
  const { clock, pending } = countingClock();
  const bus = new EventBus({ clock, currentBeat: () => 0, publicationClock: clock });
  const subscriptions = countSubscriptions(bus);
  const options: RuntimeOptions = {
    config: {
      dataDir: join(dir, 'data'),
      mcp: { mcpServers: { fixture: stdioFixture({ FIXTURE_PID_FILE: pidFile }) } },
      ...config,
    },
    clock,
    bus,
    metrics: new VigilMetrics({ defaultMetrics: false }),
    offClock: { ioTimers: clock },
  };
  const pids = () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim().split('\n').map(Number) : []);
  return { options, clock, pending, bus, subscriptions, pids };
}

type Host = ReturnType<typeof host>;

/** The kinds of handles that would keep the process alive or hold a child, counted. */
function liveHandles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** What `after` holds more of than `before`. */
function grown(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const more: Record<string, number> = {};
  for (const [kind, count] of after) if (count > (before.get(kind) ?? 0)) more[kind] = count - (before.get(kind) ?? 0);
  return more;
}

/** Nothing of the failed boot is left; a new runtime on the same data dir boots, and its history is returned. */
async function expectNothingLeft(
  h: Host,
  handlesBefore: Map<string, number>,
  config = h.options.config!,
): Promise<VigilEvent[]> {
  expect(h.subscriptions()).toBe(0);
  expect(h.pending.size).toBe(0);
  // No MCP server was ever started, or it was ended.
  expect(h.pids().filter(isAlive)).toEqual([]);
  expect(grown(handlesBefore, liveHandles())).toEqual({});
  // LevelDB holds its LOCK while open (within one process too): a second open of a dir not closed is refused.
  const successor = await createRuntime({
    config,
    clock: createSimulatedClock(),
    metrics: new VigilMetrics({ defaultMetrics: false }),
  });
  cleanups.push(() => successor.stop());
  return successor.history({ limit: 1000 });
}

/** The event the probe emits on the host's bus just before it fails the boot: the journal must write it. */
const probeEvent = (phase: BootPhase) => ({ beatCount: 0, reason: `probe after ${phase}` });

describe('createRuntime, a start that fails', () => {
  it.each(BOOT_PHASES)('leaves nothing behind when it fails after the %s phase', async (phase) => {
    const h = host();
    const handles = liveHandles();
    const injected = new Error(`injected after the ${phase} phase`);
    const booting = bootRuntime(h.options, {
      afterPhase(reached) {
        if (reached !== phase) return;
        h.bus.emit('heartbeat.stopped', probeEvent(phase));
        throw injected;
      },
    });
    await expect(booting).rejects.toBe(injected);
    const history = await expectNothingLeft(h, handles);
    // The journal, attached in the events phase, wrote what it held before it let go.
    const journaled = history.some(
      (event) => event.type === 'heartbeat.stopped' && event.reason === probeEvent(phase).reason,
    );
    expect(journaled).toBe(BOOT_PHASES.indexOf(phase) >= BOOT_PHASES.indexOf('events'));
  });

  it('leaves nothing behind when the data dir is sealed with another key (storage phase, STORE_KEY_INVALID)', async () => {
    const h = host({ checkpointKey: 'a'.repeat(64) });
    await (await createRuntime(h.options)).stop();
    const handles = liveHandles();
    const error = await createRuntime({
      ...h.options,
      config: { ...h.options.config, checkpointKey: 'b'.repeat(64) },
    }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(VigilError);
    expect((error as VigilError).code).toBe('STORE_KEY_INVALID');
    await expectNothingLeft(h, handles);
  });

  it('leaves nothing behind when the identity file is missing (between the seed and tools phases)', async () => {
    const h = host();
    const config = h.options.config!;
    const handles = liveHandles();
    const missing = { ...config, identityFile: join(tempDir(), 'no-such-identity.md') };
    await expect(createRuntime({ ...h.options, config: missing })).rejects.toMatchObject({ code: 'ENOENT' });
    await expectNothingLeft(h, handles, config);
  });

  it('closes the same way after a start: the MCP server it ran is ended, every subscription and timer gone', async () => {
    const h = host();
    const handles = liveHandles();
    const runtime = await createRuntime(h.options);
    let up = false;
    const watching = h.bus.select(['mcp.server_up']).subscribe(() => (up = true));
    runtime.start();
    // The server's start is real I/O (a node process loading tsx); beats go on meanwhile.
    await vi.waitFor(
      () => {
        h.clock.increment(1000);
        expect(up).toBe(true);
      },
      { timeout: 30_000, interval: 20 },
    );
    watching.unsubscribe();
    expect(h.pids().filter(isAlive)).toHaveLength(1);
    await runtime.stop();
    await expectNothingLeft(h, handles);
  });
});
