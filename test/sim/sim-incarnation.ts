/**
 * One runtime incarnation of a simulated run: the whole runtime (`createRuntime`) on its own cuttable clock and disk
 * view, the real AnthropicThinker and SDK over the simulated model's `fetch`, the MCP path over the simulated server's
 * transport, and a bus the simulator taps. `kill` is `kill -9`: nothing of it runs into its successor.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import Anthropic from '@anthropic-ai/sdk';
import type { Subscription } from 'rxjs';
import type { VigilConfig } from '../../src/config.js';
import { EventBus } from '../../src/events/event-bus.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { VigilLogger } from '../../src/shared/logger.js';
import type { CheckpointZip } from '../../src/subsystems/checkpoint/checkpoint.codec.js';
import { VigilMetrics } from '../../src/subsystems/metrics/vigil-metrics.js';
import { AnthropicThinker } from '../../src/subsystems/thinking/anthropic-thinker.js';
import { resolvePrice } from '../../src/subsystems/thinking/pricing.js';
import type { SimChatPlatform } from './sim-chat-platform.js';
import { SIM_CHANNEL_TOKEN_ENV } from './sim-chat-scenario.js';
import { IncarnationClock, type SimWorldClock } from './sim-clock.js';
import type { FeedSource } from './sim-clients.js';
import type { SimDisk, SimLevel } from './sim-disk.js';
import type { IncarnationRecord } from './sim-history.js';
import type { SimMcpServer } from './sim-mcp-server.js';
import type { SimModel } from './sim-model.js';
import type { SimRandom } from './sim-random.js';
import type { SimWebhookReceiver } from './sim-webhook-receiver.js';

/** Checkpoint compression on the calling thread: zlib's thread pool would finish at a moment no seed decides. */
export const SYNC_ZIP: CheckpointZip = {
  gzip: async (data) => gzipSync(data),
  gunzip: async (data) => gunzipSync(data),
};

/** What an incarnation is built from: the world it lives in. */
export interface IncarnationDeps {
  world: SimWorldClock;
  disk: SimDisk;
  model: SimModel;
  mcp: SimMcpServer;
  /** The webhook receivers (the outbox's post function), and the backoff's jitter (seeded: a run replays exactly). */
  webhooks?: SimWebhookReceiver;
  webhookRandom?: SimRandom;
  /** The chat platform a configured channel talks to (its adapters, and the seed's pairing codes). */
  chat?: SimChatPlatform;
  config: Partial<VigilConfig>;
  identity: string;
  logger: VigilLogger;
  /** Whether a write fails now. */
  failWrite(what: string): boolean;
  /** Simulated ms of one fsync. */
  fsyncMs(): number;
  /** Called (synchronously, from inside the operation) when an armed crash fires. */
  onCrash(incarnation: Incarnation, how: string): void;
  /** Whether every published event is kept in `published` (the year keeps none: its heap is measured). */
  recordEvents?: boolean;
  /** Called with every event the bus publishes. */
  onEvent?: (event: VigilEvent) => void;
  /** Called when a think starts (before its prompt is built). */
  onThinkStart?: () => void;
  /**
   * Defers background work (long-term memory's index build) until the boot is done, as the daemon does once it
   * listens; the year measures its boots so. The seeded runs keep it off: their histories replay as recorded.
   */
  backgroundWorkAfterBoot?: boolean;
}

/** A runtime incarnation: alive from boot until killed or stopped. */
export class Incarnation implements FeedSource {
  readonly clock: IncarnationClock;
  readonly db: SimLevel;
  readonly bus: EventBus;
  readonly published: VigilEvent[] = [];
  readonly record: IncarnationRecord;
  private readonly tap: Subscription;
  private runtimeValue: Runtime | undefined;
  private maxSeq = 0;
  private killed = false;
  private resolveDied!: () => void;
  /** Settles when the process dies (killed, or a crash fired inside an operation). */
  readonly died = new Promise<void>((resolve) => (this.resolveDied = resolve));

  constructor(
    readonly number: number,
    private readonly deps: IncarnationDeps,
    journalSeqAtBoot: number,
  ) {
    const { world, disk } = deps;
    this.clock = new IncarnationClock(world);
    this.db = disk.view({
      crashed: (op, what) => deps.onCrash(this, `crash inside operation ${op} (${what})`),
      failWrite: (what) => deps.failWrite(what),
      fsync: () => new Promise((resolve) => world.setTimeout(resolve, deps.fsyncMs())),
    });
    this.bus = new EventBus({ clock: this.clock, currentBeat: () => 0 });
    this.maxSeq = journalSeqAtBoot;
    this.record = {
      number,
      bootedAt: world.now(),
      journalSeqAtBoot,
      published: this.published,
      death: null,
      booted: false,
    };
    const record = deps.recordEvents !== false;
    this.tap = this.bus.events$.subscribe((event) => {
      if (record) this.published.push(event);
      if (event.seq > this.maxSeq) this.maxSeq = event.seq;
      deps.onEvent?.(event);
    });
  }

  /** The runtime, once booted. */
  get runtime(): Runtime {
    if (this.runtimeValue === undefined) throw new Error(`incarnation ${this.number} has no runtime yet`);
    return this.runtimeValue;
  }

  get alive(): boolean {
    return !this.killed && this.runtimeValue !== undefined;
  }

  get dead(): boolean {
    return this.killed;
  }

  lastSeq(): number {
    return this.maxSeq;
  }

  /** Builds and starts the runtime; false when the process died during the boot. */
  async boot(): Promise<boolean> {
    const { deps } = this;
    let booted!: () => void;
    const bootDone = new Promise<void>((resolve) => (booted = resolve));
    const made = createRuntime({
      ...(deps.backgroundWorkAfterBoot === true ? { backgroundWorkAfter: bootDone } : {}),
      config: deps.config,
      db: this.db.asVigilDb(),
      clock: this.clock,
      bus: this.bus,
      logger: deps.logger,
      // Node's process metrics sample the real event loop (timers of their own); the simulation has no use for them.
      metrics: new VigilMetrics({ defaultMetrics: false }),
      identity: deps.identity,
      thinker: this.thinker(),
      mcp: { createTransport: deps.mcp.transportFor(this.number) },
      ...(deps.webhooks === undefined
        ? {}
        : { webhooks: { post: deps.webhooks.postFor(this.number), random: () => deps.webhookRandom!.next() } }),
      offClock: { ioTimers: this.clock, zip: SYNC_ZIP },
      ...(deps.chat === undefined ? {} : { channels: this.channels(deps.chat) }),
    });
    // A boot that fails (a write the disk refused) ends the process as a crash would: the daemon exits non-zero and
    // is started again. Its rejection is taken here even when a crash came first.
    const built = made.catch((err: unknown) => {
      if (!this.killed) this.kill(`boot failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    });
    const runtime = await Promise.race([built, this.died.then(() => undefined)]);
    if (runtime === undefined || this.killed) return false;
    // The gateway starts its "newest seq" from the journal's, as the daemon's does.
    const last = await Promise.race([runtime.lastEventSeq(), this.died.then(() => undefined)]);
    if (last === undefined || this.killed) return false;
    this.maxSeq = Math.max(this.maxSeq, last);
    this.runtimeValue = runtime;
    this.record.booted = true;
    runtime.start();
    booted();
    return true;
  }

  /** `kill -9`: timers, model calls, the event feed and the disk view die with it, at once. */
  kill(how: string): void {
    if (this.killed) return;
    this.killed = true;
    this.record.death = { at: this.deps.world.now(), how };
    this.clock.cut();
    this.deps.model.cut(this.number);
    this.deps.webhooks?.cut(this.number);
    this.deps.chat?.cut(this.number);
    this.tap.unsubscribe();
    void this.db.cut();
    this.resolveDied();
  }

  /** After a kill: what the process had sent the disk lands, its MCP connection closes, its bus ends. */
  async bury(): Promise<void> {
    await this.db.dead();
    await this.deps.chat?.buried(this.number);
    await this.deps.mcp.cut(this.number);
    this.bus.close();
  }

  /** A clean stop (the final checkpoint); `step` keeps simulated time moving while the stop waits for its beat. */
  async stop(step: () => Promise<void>): Promise<boolean> {
    let done = false;
    let failed = false;
    void this.runtime.stop('simulation ended').then(
      () => (done = true),
      () => (failed = done = true),
    );
    for (let i = 0; !done && !this.killed && i < 5_000; i += 1) await step();
    this.tap.unsubscribe();
    this.killed = true;
    this.clock.cut();
    this.deps.chat?.cut(this.number);
    await this.deps.mcp.cut(this.number);
    this.bus.close();
    return done && !failed;
  }

  /** The channels' injection: this incarnation's adapter on the platform, its token, and the seed's pairing codes. */
  private channels(chat: SimChatPlatform) {
    return {
      env: { [SIM_CHANNEL_TOKEN_ENV]: 'sim-chat-token' },
      createAdapter: () => chat.adapterFor(this.number),
      newCode: () => chat.newCode(),
    };
  }

  private thinker(): AnthropicThinker {
    const model = 'claude-sonnet-5-5';
    const started = this.deps.onThinkStart;
    const Thinker =
      started === undefined
        ? AnthropicThinker
        : class TimedThinker extends AnthropicThinker {
            override think(...args: Parameters<AnthropicThinker['think']>) {
              started();
              return super.think(...args);
            }
          };
    return new Thinker({
      apiKey: 'sk-sim',
      model,
      price: resolvePrice(model),
      maxToolIterations: this.deps.config.maxToolIterations ?? 4,
      // The SDK's retries sleep in real time: the heartbeat retries on the next beat instead, in simulated time.
      client: new Anthropic({
        apiKey: 'sk-sim',
        baseURL: 'http://sim.invalid',
        maxRetries: 0,
        timeout: 3_600_000,
        fetch: this.deps.model.fetchFor(this.number),
      }),
      now: () => this.clock.now(),
    });
  }
}
