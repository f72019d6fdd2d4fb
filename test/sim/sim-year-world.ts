/**
 * The simulated year's world: one agent on an on-disk LevelDB data dir (so its size is real), the simulated model as
 * an ordinary agent's, the simulated MCP server without faults, and nothing recorded that grows with time (the heap
 * is measured). It boots, stops, crashes and reopens the data dir as a process would, and times what the year's
 * report compares: a boot, a think's prompt build (from `think()` to its first request), and each checkpoint save.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { pino } from 'pino';
import type { VigilConfig } from '../../src/config.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { compactBeforeClose, SUBLEVELS, type VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { SimWorldClock } from './sim-clock.js';
import { SimDisk, type BackingStore } from './sim-disk.js';
import { Incarnation } from './sim-incarnation.js';
import { SimMcpServer, SIM_SERVER, SIM_SERVER_ENTRY } from './sim-mcp-server.js';
import { CALM, SimModel } from './sim-model.js';
import { simRandom, type SimRandom } from './sim-random.js';
import { SIM_IDENTITY } from './sim-scenario.js';
import { settle } from './sim-settle.js';

/**
 * The year's settings: the defaults (retention among them), a budget it never reaches, and beats of one minute
 * (ten while idle): a year of one-second beats would be 31 million steps.
 */
export const YEAR_CONFIG: Partial<VigilConfig> = {
  beatMs: 60_000,
  beatMinMs: 10_000,
  beatMaxMs: 600_000,
  dailyBudgetUsd: 1_000,
  timezone: 'UTC',
  model: 'claude-sonnet-5-5',
  mcp: { mcpServers: { [SIM_SERVER]: SIM_SERVER_ENTRY } },
};

/** One agent's world on data dir `dir`. */
export class YearWorld {
  readonly world: SimWorldClock;
  readonly rng: SimRandom;
  /** Prompt builds (ms from a think's start to its first request) and checkpoint saves (ms), as they happen. */
  readonly promptMs: number[] = [];
  readonly checkpointMs: number[] = [];
  thinks = 0;
  private readonly disk: SimDisk;
  private readonly model: SimModel;
  private readonly mcp: SimMcpServer;
  private current: Incarnation | null = null;
  private incarnations = 0;
  private thinkStartedAt: number | null = null;
  private readonly logger = pino({ level: 'silent' });

  constructor(
    readonly dir: string,
    startAt: number,
    seed: number,
    /** Settings over YEAR_CONFIG (the year's `--memory-max`). */
    private readonly overrides: Partial<VigilConfig> = {},
  ) {
    this.world = new SimWorldClock(startAt);
    this.rng = simRandom(seed);
    this.disk = new SimDisk(openStore(dir));
    this.model = new SimModel(this.world, this.rng.fork('model'), {
      faults: CALM,
      timeoutMs: 120_000,
      profile: 'ordinary',
      record: false,
      onRequest: (request) => {
        if (request.kind !== 'think' || request.loopCall !== 0 || this.thinkStartedAt === null) return;
        this.promptMs.push(performance.now() - this.thinkStartedAt);
        this.thinkStartedAt = null;
      },
    });
    this.mcp = new SimMcpServer(this.world, this.rng.fork('mcp'), false);
    this.mcp.quiet();
  }

  /** The running runtime. */
  get runtime(): Runtime {
    if (this.current === null) throw new Error('no runtime is running');
    return this.current.runtime;
  }

  /** Opens the data dir and boots a runtime on it; resolves to the boot's wall-clock ms (LevelDB's open included, the background work it starts not). */
  async boot(): Promise<number> {
    const started = performance.now();
    // A new handle on the same files (a closed one cannot be opened again while another process could hold the lock).
    if (this.disk.store.status === 'closed') this.disk.reopen(openStore(this.dir));
    await this.disk.store.open();
    const incarnation = new Incarnation(
      (this.incarnations += 1),
      {
        world: this.world,
        disk: this.disk,
        model: this.model,
        mcp: this.mcp,
        config: { ...YEAR_CONFIG, ...this.overrides },
        identity: SIM_IDENTITY,
        logger: this.logger,
        failWrite: () => false,
        fsyncMs: () => 0,
        onCrash: () => undefined,
        recordEvents: false,
        backgroundWorkAfterBoot: true,
        onEvent: (event) => {
          if (event.type === 'checkpoint.created') this.checkpointMs.push(event.durationMs);
        },
        onThinkStart: () => {
          this.thinks += 1;
          this.thinkStartedAt = performance.now();
        },
      },
      0,
    );
    const booting = incarnation.boot();
    let done = false;
    // Timed to the moment the boot resolves, as the daemon's boot is timed to `gateway listening`: the tick that is
    // under way then goes on settling the work a boot starts in the background (long-term memory's index), which a
    // daemon does while it already answers.
    let bootedAt = Number.NaN;
    void booting
      .finally(() => {
        done = true;
        bootedAt = performance.now();
      })
      .catch(() => undefined);
    while (!done) await this.tick();
    if (!(await booting)) throw new Error('a boot of the simulated year failed');
    this.current = incarnation;
    return bootedAt - started;
  }

  /** A clean stop (final checkpoint), then the data dir is closed. */
  async stop(): Promise<void> {
    const incarnation = this.current!;
    this.current = null;
    await incarnation.stop(() => this.tick());
    // As the daemon's own stop does before it closes the database it opened (the simulated runtime's is the host's).
    await compactBeforeClose(this.disk.store as unknown as VigilDb);
    await this.disk.store.close();
  }

  /** `kill -9`: the runtime is abandoned where it stands, and the data dir is closed under it. */
  async crash(): Promise<void> {
    const incarnation = this.current!;
    this.current = null;
    incarnation.kill('a simulated crash');
    await incarnation.bury();
    await this.disk.store.close();
  }

  /** Moves simulated time to `at`, timer by timer (those due now first), letting each step's work run out. */
  async runUntil(at: number): Promise<void> {
    do {
      this.world.advanceTo(Math.min(this.world.nextDueAt(), at));
      await settle(() => this.disk.busy());
    } while (this.world.now() < at);
  }

  /** Moves simulated time to the next timer (a second at most). */
  async tick(): Promise<void> {
    await this.runUntil(Math.min(this.world.nextDueAt(), this.world.now() + 1_000));
  }

  /** A user message, not waited for. */
  send(text: string): void {
    this.runtime.send({ text }).catch(() => undefined);
  }

  /** How many long-term memories the running runtime's data dir holds (its keys walked, no value read). */
  async longTermMemoryCount(): Promise<number> {
    let count = 0;
    const range = { ...sublevelRange(SUBLEVELS.longTermMemory), keyEncoding: 'view' } as const;
    for await (const _ of this.disk.store.keys(range)) count += 1;
    return count;
  }

  /** The data dir's size in bytes. */
  sizeBytes(): number {
    return dirBytes(this.dir);
  }
}

/** The raw keys of sublevel `name` (level's `!name!key`; `"` is the character after `!`). */
function sublevelRange(name: string): { gte: Uint8Array; lt: Uint8Array } {
  const encoder = new TextEncoder();
  return { gte: encoder.encode(`!${name}!`), lt: encoder.encode(`!${name}"`) };
}

function openStore(dir: string): BackingStore {
  return new Level<Uint8Array, Uint8Array>(join(dir, 'db'), {
    keyEncoding: 'view',
    valueEncoding: 'view',
  }) as unknown as BackingStore;
}

/**
 * A fresh data dir `toDir` holding exactly the memories of `fromDir` (not open elsewhere), byte for byte, and nothing
 * else: its long-term memories and the live conversation (the messages retention keeps, which a runtime indexes for
 * search). What a search costs on it, and the heap a runtime holds for it, is what the same memories cost without
 * any age (no journal, traces, tool calls, archives or checkpoints of a year).
 */
export async function copyMemories(fromDir: string, toDir: string): Promise<number> {
  const [from, to] = [openStore(fromDir), openStore(toDir)];
  await Promise.all([from.open(), to.open()]);
  let copied = 0;
  try {
    for (const name of [
      SUBLEVELS.longTermMemory,
      SUBLEVELS.longTermMemoryMeta,
      SUBLEVELS.conversation,
      SUBLEVELS.conversationMeta,
    ]) {
      const range = { ...sublevelRange(name), keyEncoding: 'view', valueEncoding: 'view' } as const;
      const entries = await from.iterator(range).all();
      await to.batch(entries.map(([key, value]) => ({ type: 'put' as const, key, value })));
      if (name === SUBLEVELS.longTermMemory) copied = entries.length;
    }
  } finally {
    await Promise.all([from.close(), to.close()]);
  }
  return copied;
}

/** Live keys and their bytes (key and value) per sublevel of the data dir `dir` (not open elsewhere). */
export async function sublevelSizes(dir: string): Promise<Map<string, { keys: number; bytes: number }>> {
  const store = openStore(dir);
  await store.open();
  const sizes = new Map<string, { keys: number; bytes: number }>();
  try {
    for await (const [key, value] of store.iterator()) {
      const text = new TextDecoder().decode(key);
      const name = text.startsWith('!') ? text.slice(1, text.indexOf('!', 1)) : '(root)';
      const size = sizes.get(name) ?? { keys: 0, bytes: 0 };
      size.keys += 1;
      size.bytes += key.byteLength + value.byteLength;
      sizes.set(name, size);
    }
  } finally {
    await store.close();
  }
  return sizes;
}

/** The time of the newest journalled event of the data dir `dir` (not open elsewhere): where its agent stopped. */
export async function lastEventAt(dir: string): Promise<number> {
  const store = openStore(dir);
  await store.open();
  try {
    for await (const value of store.values({ ...sublevelRange(SUBLEVELS.eventJournal), reverse: true, limit: 1 })) {
      // The newest entry's last event (an entry is a batch's array of events, or one event before batching).
      const entry = JSON.parse(new TextDecoder().decode(value)) as { at: string } | { at: string }[];
      return Date.parse((Array.isArray(entry) ? entry[entry.length - 1]! : entry).at);
    }
    throw new Error(`${dir} has no journalled event`);
  } finally {
    await store.close();
  }
}

/** Bytes of every file under `dir`. */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}
