/**
 * One seed's run: the world (clock, disk, model, MCP server, clients, and the chat platform when the seed has a
 * channel), the runtime booted into it, client actions and faults at seeded moments, crashes and restarts on the same
 * disk, then a drain without faults in which every turn must end (and every channel reply be delivered), a clean
 * stop, and the history the checker reads.
 */
import { pino } from 'pino';
import type { ConversationMessage } from '../../src/protocol/conversation.schema.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import type { VigilLogger } from '../../src/shared/logger.js';
import { ConversationLog } from '../../src/subsystems/conversation/conversation-log.js';
import { loadChannelCore } from '../../src/runtime/channel-parts.js';
import { loadSemanticParts } from '../../src/runtime/create-runtime.js';
import { loadMemoryIndex } from '../../src/subsystems/memory/memory-index-loader.js';
import { loadWebhookDelivery } from '../../src/subsystems/webhooks/webhook-delivery-loader.js';
import { loadMcpClient } from '../../src/subsystems/tools/mcp-hub.js';
import { loadAjv } from '../../src/subsystems/tools/tool-args.js';
import { SimActions } from './sim-actions.js';
import { strayCounts, type SimChannelHistory } from './sim-channels-check.js';
import { SimChatPlatform } from './sim-chat-platform.js';
import { SIM_CHANNEL } from './sim-chat-scenario.js';
import { SimChatTraffic } from './sim-chat-traffic.js';
import { SimWorldClock } from './sim-clock.js';
import { SimClients } from './sim-clients.js';
import { SimDisk } from './sim-disk.js';
import type { SimHistory } from './sim-history.js';
import { Incarnation } from './sim-incarnation.js';
import { SimMcpServer } from './sim-mcp-server.js';
import { SimModel } from './sim-model.js';
import { simRandom, type SimRandom } from './sim-random.js';
import { drawScenario, SIM_IDENTITY, withoutChannel, type SimScenario } from './sim-scenario.js';
import { settle } from './sim-settle.js';
import { SimWebhookReceiver } from './sim-webhook-receiver.js';

/** Options of one run (tests and the CLI narrow the scenario). */
export interface RunOptions {
  /** Overrides of the drawn scenario. */
  scenario?: Partial<SimScenario>;
  /** False: no chat channel even when the seed draws one (the seed as it ran before channels were simulated). */
  channel?: boolean;
}

/** Runs seed `seed` to its end and returns everything it recorded. */
export async function runSeed(seed: number, options: RunOptions = {}): Promise<SimHistory> {
  // Modules the runtime loads lazily arrive at a moment no seed decides: loaded before the first step, they are there.
  await Promise.all([
    loadMcpClient(),
    loadAjv(),
    loadMemoryIndex(),
    loadWebhookDelivery(),
    loadChannelCore(),
    loadSemanticParts(),
  ]);
  return new SimRun(seed, options).run();
}

/** Simulated ms a crashed runtime stays down before it is started again. */
const RESTART_DELAY_MS: [number, number] = [500, 15_000];
/** The drain ends once nothing has been pending for this long. */
const QUIET_END_MS = 10_000;
/** A seed takes a few thousand steps; one past this busy-loops (a runtime that never rests), and ends as a violation. */
export const MAX_STEPS = 8_000;

/** The run's state. */
export class SimRun {
  readonly rng: SimRandom;
  readonly scenario: SimScenario;
  readonly world: SimWorldClock;
  readonly disk = new SimDisk();
  readonly model: SimModel;
  readonly mcp: SimMcpServer;
  readonly clients = new SimClients();
  readonly webhookReceiver: SimWebhookReceiver;
  readonly incarnations: Incarnation[] = [];
  readonly history: Omit<
    SimHistory,
    | 'journal'
    | 'loggedTurnIds'
    | 'drained'
    | 'drainState'
    | 'stoppedCleanly'
    | 'simulatedMs'
    | 'steps'
    | 'schedules'
    | 'schedulesListedAt'
    | 'webhooks'
    | 'channel'
  >;
  /** The chat platform and the people on it, when the seed has a channel. */
  readonly chat: SimChatPlatform | null = null;
  private readonly chatTraffic: SimChatTraffic | null = null;
  current: Incarnation | null = null;
  crashes = 0;
  /** Writes fail (with the scenario's probability) until then. */
  faultUntil = 0;
  phase: 'active' | 'drain' = 'active';
  /** What the drain last found pending. */
  drainState = '';
  private restartAt: number | null = null;
  private readonly diskRng: SimRandom;
  private readonly actions: SimActions;
  private readonly logger: VigilLogger;
  private steps = 0;

  constructor(seed: number, options: RunOptions) {
    this.rng = simRandom(seed);
    const drawn = { ...drawScenario(seed, this.rng.fork('scenario')), ...options.scenario };
    this.scenario = options.channel === false ? withoutChannel(drawn) : drawn;
    this.world = new SimWorldClock(this.scenario.startAt);
    this.model = new SimModel(this.world, this.rng.fork('model'), {
      faults: this.scenario.model,
      timeoutMs: this.scenario.config.anthropicTimeoutMs ?? 120_000,
    });
    this.mcp = new SimMcpServer(this.world, this.rng.fork('mcp'));
    this.webhookReceiver = new SimWebhookReceiver(this.world, this.rng.fork('webhook receiver'));
    this.diskRng = this.rng.fork('disk');
    const log: string[] = [];
    this.history = {
      scenario: this.scenario,
      incarnations: [],
      failedJournalSeqs: this.disk.failedJournalSeqs,
      chains: this.clients.chains,
      requests: this.model.requests,
      effects: this.mcp.effects,
      sends: [],
      actions: [],
      budget: [],
      log,
    };
    this.logger = pino(
      { level: 'warn', timestamp: false },
      { write: (line: string) => log.push(`${new Date(this.world.now()).toISOString()} ${line.trim()}`) },
    );
    this.actions = new SimActions(this, this.rng.fork('actions'));
    if (this.scenario.channel !== null) {
      this.chat = new SimChatPlatform(this.world, this.rng.fork('chat platform'), this.scenario.channel, {
        crash: (number, how) => {
          const current = this.current;
          if (current?.number !== number || !current.alive || this.phase !== 'active') return false;
          if (this.crashes >= this.scenario.maxCrashes) return false;
          this.crashNow(how);
          return true;
        },
        records: () => this.disk.entriesAt(`!channels!${SIM_CHANNEL}!`),
      });
      this.chatTraffic = new SimChatTraffic(
        this.chat,
        {
          world: this.world,
          current: () => this.current,
          note: (incarnation, action, outcome) => {
            const record = { at: this.world.now(), incarnation, action, outcome };
            this.history.actions.push(record);
            return record;
          },
        },
        this.rng.fork('chat traffic'),
      );
    }
  }

  async run(): Promise<SimHistory> {
    const { scenario, world } = this;
    const activeEnd = scenario.startAt + scenario.activeMs;
    const drainEnd = activeEnd + scenario.drainMs;
    await this.restart();
    let quietSince: number | null = null;
    // The newest seq when the drain's quiet began: every webhook delivery up to it had that quiet to land.
    let quietSeq: number | null = null;
    while (world.now() < drainEnd && this.steps < MAX_STEPS) {
      if (this.phase === 'active' && world.now() >= activeEnd) this.startDrain();
      if (this.phase === 'drain' && this.current?.alive === true) {
        const quiet = this.actions.drainTick();
        if (quiet && quietSince === null) quietSeq = this.current.lastSeq();
        quietSince = quiet ? (quietSince ?? world.now()) : null;
        if (quietSince !== null && world.now() - quietSince >= QUIET_END_MS) break;
      }
      await this.step(this.phase === 'active' ? Math.min(this.actions.nextAt, activeEnd) : world.now() + 1_000);
    }
    const drained = quietSince !== null;
    const alive = this.current?.alive === true;
    const schedules = alive ? this.current!.runtime.listSchedules() : [];
    const schedulesListedAt = alive ? world.now() : null;
    const webhooksListed = alive ? await this.whileTimePasses(this.current!.runtime.webhooks.list()) : [];
    const stoppedCleanly =
      this.current?.alive === true && this.steps < MAX_STEPS
        ? await this.current.stop(() => this.step(world.now() + 1_000))
        : false;
    if (this.current !== null) this.clients.disconnectAll(this.current.number, 'end');
    const users = await this.loggedUserMessages();
    return {
      ...this.history,
      journal: await this.disk.journal<VigilEvent>(),
      loggedTurnIds: [...new Set(users.map((m) => m.turnId))],
      drained,
      drainState: this.drainState,
      stoppedCleanly,
      schedules,
      schedulesListedAt,
      webhooks: {
        requests: this.webhookReceiver.requests,
        endpoints: this.actions.webhooks.endpoints,
        checkedUpToSeq: drained && alive ? quietSeq : null,
        listed: webhooksListed.map(({ id, url, state }) => ({ id, url, state })),
      },
      channel: await this.channelHistory(users),
      simulatedMs: world.now() - scenario.startAt,
      steps: this.steps,
    };
  }

  /** Moves simulated time to the next timer or `until`, whichever comes first, then lets the step's work run out. */
  async step(until: number): Promise<void> {
    this.steps += 1;
    const next = Math.min(this.world.nextDueAt(), until, this.restartAt ?? Number.POSITIVE_INFINITY);
    this.world.advanceTo(next);
    if (this.phase === 'active' && next === this.actions.nextAt && this.world.now() >= this.actions.nextAt)
      this.actions.act();
    await settle(() => this.disk.busy());
    if (this.current?.dead === true) await this.buryCurrent();
    if (this.restartAt !== null && this.world.now() >= this.restartAt) await this.restart();
    this.actions.sampleBudget();
  }

  /** Waits for `work` while simulated time moves from timer to timer (a boot's fsyncs take simulated time too). */
  private async whileTimePasses<T>(work: Promise<T>): Promise<T> {
    let done = false;
    void work.finally(() => (done = true)).catch(() => undefined);
    await settle(() => this.disk.busy());
    while (!done) {
      const next = this.world.nextDueAt();
      if (!Number.isFinite(next)) throw new Error(`seed ${this.scenario.seed}: the boot waits and no timer is set`);
      this.world.advanceTo(next);
      await settle(() => this.disk.busy());
    }
    return work;
  }

  /** Kills the running incarnation now (a crash at a quiet moment). */
  crashNow(how: string): void {
    if (this.current === null || !this.current.alive) return;
    this.crashes += 1;
    this.current.kill(how);
  }

  /** Whether a write fails now. */
  failWrite(): boolean {
    return (
      this.phase === 'active' && this.world.now() < this.faultUntil && this.diskRng.chance(this.scenario.writeFailP)
    );
  }

  private startDrain(): void {
    this.phase = 'drain';
    this.model.calm();
    this.mcp.quiet();
    this.webhookReceiver.quiet();
    this.chatTraffic?.stop();
    this.chat?.quiet();
    this.faultUntil = 0;
    this.current?.db.arm(null);
  }

  private async buryCurrent(): Promise<void> {
    const dead = this.current!;
    this.current = null;
    this.clients.disconnectAll(dead.number, 'crash');
    await dead.bury();
    const [min, max] = RESTART_DELAY_MS;
    this.restartAt = this.world.now() + this.diskRng.int(min, max);
  }

  /** Boots a new incarnation on the same disk; one that dies while booting is buried and booted again. */
  private async restart(): Promise<void> {
    this.restartAt = null;
    for (;;) {
      const number = this.incarnations.length + 1;
      const incarnation = new Incarnation(number, this.incarnationDeps(), await this.disk.lastJournalSeq());
      this.incarnations.push(incarnation);
      this.history.incarnations.push(incarnation.record);
      this.actions.armBootCrash(incarnation);
      if (await this.whileTimePasses(incarnation.boot())) {
        this.current = incarnation;
        this.actions.afterBoot(incarnation);
        return;
      }
      this.clients.disconnectAll(number, 'crash');
      await incarnation.bury();
    }
  }

  private incarnationDeps() {
    return {
      world: this.world,
      disk: this.disk,
      model: this.model,
      mcp: this.mcp,
      webhooks: this.webhookReceiver,
      webhookRandom: this.rng.fork('webhook jitter'),
      ...(this.chat === null ? {} : { chat: this.chat }),
      config: this.scenario.config,
      identity: SIM_IDENTITY,
      logger: this.logger,
      failWrite: () => this.failWrite(),
      fsyncMs: () => this.diskRng.int(...this.scenario.fsyncMs),
      onCrash: (incarnation: Incarnation, how: string) => {
        this.crashes += 1;
        incarnation.kill(how);
      },
    };
  }

  /** The user messages in the conversation log at the end, read behind the runtime's back. */
  private async loggedUserMessages(): Promise<ConversationMessage[]> {
    const view = this.disk.view({ crashed: () => undefined, failWrite: () => false, fsync: async () => undefined });
    const log = new ConversationLog(view.asVigilDb());
    await log.open();
    const messages = await log.readAfter(0);
    return messages.filter((m) => m.role === 'user');
  }

  /** The chat platform's world, and what the channel left on disk and in the log (null: no channel). */
  private async channelHistory(users: readonly ConversationMessage[]): Promise<SimChannelHistory | null> {
    if (this.chat === null) return null;
    const records = await this.disk.entriesAt(`!channels!${SIM_CHANNEL}!`);
    const inbox = [...records]
      .filter(([key]) => key.startsWith('i!'))
      .map(([key, value]) => {
        const [, chatId = '', messageId = ''] = key.split('!');
        return { chatId, messageId, turnId: (value as { turnId: string }).turnId };
      });
    const turns = users
      .filter((m) => m.from?.startsWith(`${SIM_CHANNEL}:`) === true)
      .map((m) => ({ turnId: m.turnId, from: m.from! }));
    this.chat.chats.markUnwritten(this.disk.failedReplyMessages);
    const world = this.chat.record();
    return { world, inbox, turns, ...strayCounts(world) };
  }
}
