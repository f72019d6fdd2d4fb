/**
 * CONTRACT §7 as a property: whatever the interleaving of messages, time, model behaviour and kill -9, every
 * `agent.send` turn ends in exactly one terminal event (`agent.reply` or `agent.unanswered`) in the persisted journal.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { VigilConfig } from '../../src/config.js';
import { VigilError } from '../../src/errors.js';
import { MAX_UNANSWERED_THINKS } from '../../src/heartbeat/turn-book.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import type { ThinkAction, ThinkInput } from '../../src/subsystems/thinking/thinker.schema.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

/** What the model does in one think. */
type Behaviour =
  | { kind: 'all' }
  /** Answers the carried turns whose index has its bit set. */
  | { kind: 'some'; mask: number }
  | { kind: 'none' }
  /** Replies to a turn id nobody sent. */
  | { kind: 'unknown' }
  /** Replies to the turn that ended last (or, before any ended, to an unknown id). */
  | { kind: 'stale' }
  /** The API refuses the request for good. */
  | { kind: 'refuse' }
  /** The local bound refuses the prompt before any API call. */
  | { kind: 'too_small' }
  /** The API fails transiently. */
  | { kind: 'fail' }
  /** The think runs until released, preempted, reset as stuck or killed. */
  | { kind: 'hang' };

/** One step of a scenario. */
type Command =
  /** Queues the behaviour of the next think. */
  | { kind: 'think'; behaviour: Behaviour }
  /** 1–3 messages, awaited one by one or sent at once; without `settle` the next step runs with their work in flight. */
  | { kind: 'send'; count: number; together: boolean; settle: boolean }
  | { kind: 'advance'; ms: number }
  /** Hung thinks finish, answering what they carry. */
  | { kind: 'release' }
  /** kill -9, then a new runtime on the same db. */
  | { kind: 'crash' };

/** The model's behaviour when no queued one is left, and the steps. */
interface Scenario {
  fallback: Behaviour;
  commands: Command[];
}

type TerminalEvent = Extract<VigilEvent, { type: 'agent.reply' | 'agent.unanswered' }>;

/** A 5 s stuck limit, so hung thinks are reset within the time a scenario spans. */
const CONFIG: Partial<VigilConfig> = { stuckTurnS: 5 };
const TERMINAL = ['agent.reply', 'agent.unanswered'];
const BOGUS_PREFIX = 't-bogus-';
/** Simulated time a restart takes (a real one takes more than a millisecond, so turn ids keep growing). */
const RESTART_MS = 250;

/** One think as the model saw it: the oracle for what the endings may say. */
interface ThinkRecord {
  reason: ThinkInput['reason'];
  turnId: string;
  carried: string[];
  behaviour: Behaviour['kind'];
}

/** The scripted model: each think takes the next queued behaviour, else the scenario's fallback (draining: answer all). */
class ModelThinker extends ScriptedThinker {
  readonly queue: Behaviour[] = [];
  readonly record: ThinkRecord[] = [];
  /** Turns seen ending, newest last, for replies aimed at an already answered turn. */
  readonly ended: string[] = [];
  draining = false;
  private readonly hung: Array<() => void> = [];
  private bogus = 0;

  constructor(private readonly fallback: Behaviour) {
    super();
    this.script = (input) => this.decide(input);
  }

  /** Lets every hung think finish. */
  releaseAll(): void {
    for (const release of this.hung.splice(0)) release();
  }

  private decide(input: ThinkInput): ThinkAction[] | Promise<ThinkAction[]> {
    const behaviour: Behaviour = this.draining ? { kind: 'all' } : (this.queue.shift() ?? this.fallback);
    const carried = input.pendingMessages.map((m) => m.turnId);
    this.record.push({ reason: input.reason, turnId: input.turnId, carried, behaviour: behaviour.kind });
    const reply = (turnId: string): ThinkAction => ({ type: 'reply', turnId, text: `re ${turnId}` });
    switch (behaviour.kind) {
      case 'all':
        return carried.map(reply);
      case 'some':
        return carried.filter((_, i) => ((behaviour.mask >> i) & 1) === 1).map(reply);
      case 'none':
        return [{ type: 'remember', content: 'thought about it', salience: 0.2 }];
      case 'unknown':
        return [reply(`${BOGUS_PREFIX}${(this.bogus += 1)}`)];
      case 'stale':
        return [reply(this.ended.at(-1) ?? `${BOGUS_PREFIX}${(this.bogus += 1)}`)];
      case 'refuse':
        throw new VigilError('THINK_REJECTED', 'prompt is too long: 250000 tokens > 200000 maximum');
      case 'too_small':
        throw new VigilError(
          'CONTEXT_TOO_SMALL',
          'The prompt cannot fit VIGIL_CONTEXT_TOKENS=4096. Raise VIGIL_CONTEXT_TOKENS.',
        );
      case 'fail':
        throw new VigilError('THINK_FAILED', 'overloaded_error (529)');
      case 'hang':
        return new Promise<ThinkAction[]>((resolve) => this.hung.push(() => resolve(carried.map(reply))));
    }
  }
}

const behaviourArb: fc.Arbitrary<Behaviour> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'all' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 7 }).map((mask) => ({ kind: 'some' as const, mask })) },
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'stale' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'refuse' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'too_small' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fail' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'hang' as const }) },
);

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: behaviourArb.map((behaviour) => ({ kind: 'think' as const, behaviour })) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      count: fc.integer({ min: 1, max: 3 }),
      together: fc.boolean(),
      settle: fc.boolean(),
    }),
  },
  // 6 s passes the stuck limit; 40 s passes the debrief threshold.
  {
    weight: 3,
    arbitrary: fc.constantFrom(100, 1000, 3000, 6000, 40_000).map((ms) => ({ kind: 'advance' as const, ms })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'release' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
);

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  fallback: behaviourArb,
  commands: fc.array(commandArb, { minLength: 1, maxLength: 40 }),
});

/** A scenario in progress: the model, the runtime alive now (each crash replaces it), and every turn id `send` returned. */
interface Run {
  model: ModelThinker;
  h: RuntimeHarness;
  sent: string[];
}

async function boot(model: ModelThinker, previous?: RuntimeHarness): Promise<RuntimeHarness> {
  const h =
    previous === undefined
      ? await startRuntime({ thinker: model, config: CONFIG })
      : await startRuntime({ thinker: model, config: CONFIG, db: previous.db, clock: previous.clock });
  h.runtime.events$.subscribe((event) => {
    if (event.type === 'agent.reply' || event.type === 'agent.unanswered') model.ended.push(event.turnId);
  });
  return h;
}

/** kill -9, then start again on the same data a moment later. */
async function crashAndRestart(run: Run): Promise<void> {
  await run.h.crash();
  run.h.clock.increment(RESTART_MS);
  run.h = await boot(run.model, run.h);
}

async function play({ fallback, commands }: Scenario): Promise<Run> {
  const model = new ModelThinker(fallback);
  const run: Run = { model, h: await boot(model), sent: [] };
  let n = 0;
  for (const command of commands) {
    switch (command.kind) {
      case 'think':
        model.queue.push(command.behaviour);
        break;
      case 'send': {
        const texts = Array.from({ length: command.count }, () => `message ${(n += 1)}`);
        if (command.together) {
          const results = await Promise.all(texts.map((text) => run.h.runtime.send({ text })));
          run.sent.push(...results.map((r) => r.turnId));
        } else {
          for (const text of texts) run.sent.push((await run.h.runtime.send({ text })).turnId);
        }
        if (command.settle) await run.h.settle();
        break;
      }
      case 'advance':
        await run.h.advance(command.ms, command.ms > 6000 ? 1000 : 250);
        break;
      case 'release':
        model.releaseAll();
        await run.h.settle();
        break;
      case 'crash':
        await crashAndRestart(run);
        break;
    }
  }
  return run;
}

/** Every open turn is thought about until it ends: the model answers all, and time passes any circuit-breaker back-off. */
async function drain(run: Run): Promise<void> {
  run.model.draining = true;
  run.model.releaseAll();
  await run.h.settle();
  // Beats are 1 s; an open breaker backs off up to 15 min, hence the longer steps later on.
  for (let i = 0; i < 100 && run.h.runtime.status().pendingMessages > 0; i += 1) {
    await (i < 30 ? run.h.advance(1000, 500) : run.h.advance(30_000, 30_000));
  }
}

async function terminalEvents(h: RuntimeHarness): Promise<TerminalEvent[]> {
  return (await h.runtime.history({ types: TERMINAL, limit: 10_000 })) as TerminalEvent[];
}

/** The contract, checked on the persisted journal and conversation log, with what the model saw as the oracle. */
async function expectEveryTurnEndedOnce(run: Run): Promise<TerminalEvent[]> {
  const { h, sent, model } = run;
  expect(h.runtime.status().pendingMessages).toBe(0);
  const terminal = await terminalEvents(h);
  const endings = (turnId: string) => terminal.filter((e) => e.turnId === turnId).map((e) => e.type);
  expect(sent.map((turnId) => ({ turnId, endings: endings(turnId) })).filter((t) => t.endings.length !== 1)).toEqual(
    [],
  );

  // Any other terminal event is a reply under an autonomous think's own turn: never an invented id, never an ending.
  const autonomous = new Set(model.record.filter((r) => r.reason !== 'user_message').map((r) => r.turnId));
  const sentIds = new Set(sent);
  expect(
    terminal.filter((e) => !sentIds.has(e.turnId) && !(e.type === 'agent.reply' && autonomous.has(e.turnId))),
  ).toEqual([]);

  // An ending agrees with what the model did: NO_ANSWER and TURN_STUCK only after their tries, a refusal only if refused.
  for (const event of terminal) {
    if (event.type !== 'agent.unanswered') continue;
    const carriedBy = model.record.filter((r) => r.carried.includes(event.turnId));
    expect(['NO_ANSWER', 'TURN_STUCK', 'THINK_REJECTED', 'CONTEXT_TOO_SMALL']).toContain(event.code);
    if (event.code === 'THINK_REJECTED') expect(carriedBy.some((r) => r.behaviour === 'refuse')).toBe(true);
    else if (event.code === 'CONTEXT_TOO_SMALL') expect(carriedBy.some((r) => r.behaviour === 'too_small')).toBe(true);
    else expect(carriedBy.length).toBeGreaterThanOrEqual(MAX_UNANSWERED_THINKS);
  }

  // The durable side: one agent entry per turn in the conversation log.
  const log = await h.runtime.listConversation({ limit: 1000 });
  const entries = (turnId: string) => log.filter((m) => m.role === 'agent' && m.turnId === turnId).length;
  expect(sent.map((turnId) => ({ turnId, entries: entries(turnId) })).filter((t) => t.entries !== 1)).toEqual([]);
  return terminal;
}

// A fixed seed keeps CI reproducible (60 runs, a few seconds). To explore, pick the number of runs and a seed:
//   VIGIL_PROPERTY_RUNS=2000 VIGIL_PROPERTY_SEED=$RANDOM npx vitest run test/heartbeat/turns.property.test.ts
// A failure prints its seed and path; put both in fc.assert's options to replay (and shrink) that counterexample.
const NUM_RUNS = Number(process.env.VIGIL_PROPERTY_RUNS ?? 60);
const SEED = Number(process.env.VIGIL_PROPERTY_SEED ?? 20_260_301);

describe('turns (property)', () => {
  it('ends every sent turn with exactly one terminal event, whatever the interleaving of messages, model behaviour and kill -9', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const run = await play(scenario);
        try {
          await drain(run);
          const terminal = await expectEveryTurnEndedOnce(run);
          // A kill -9 once everything has ended brings no turn back and says nothing more.
          await crashAndRestart(run);
          expect(run.h.runtime.status().pendingMessages).toBe(0);
          await run.h.advance(6000, 500);
          expect(await terminalEvents(run.h)).toHaveLength(terminal.length);
        } finally {
          run.model.releaseAll();
          await run.h.stop();
        }
      }),
      { numRuns: NUM_RUNS, seed: SEED },
    );
  }, 120_000);
});

/** The trickiest cases the property explores, pinned as examples. */
describe('turns across kill -9', () => {
  let h: RuntimeHarness | undefined;
  let model: ModelThinker | undefined;
  afterEach(async () => {
    // A hung think would hold the stop's beat boundary forever.
    model?.releaseAll();
    await h?.stop().catch(() => undefined);
    h = undefined;
    model = undefined;
  });

  it('neither re-answers nor ends again a turn whose reply was written after the newest checkpoint, when killed before the next', async () => {
    // Thinks 1 and 2 leave the turn open (the checkpoint at beat 2 holds it with two tries), think 3 answers it.
    model = new ModelThinker({ kind: 'none' });
    model.queue.push({ kind: 'none' }, { kind: 'none' }, { kind: 'all' });
    const config = { ...CONFIG, checkpointIntervalBeats: 2 };
    h = await startRuntime({ thinker: model, config });
    const { turnId } = await h.runtime.send({ text: 'hello?' });
    await h.settle();
    for (let i = 0; i < 50 && h.ofType('agent.reply').length === 0; i += 1) await h.advance(100);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId }]);
    // Killed right after the reply, before any newer checkpoint: the newest one still holds the turn open.
    await h.crash();
    const [checkpoint] = await h.runtime.listCheckpoints();
    expect((await h.runtime.getCheckpoint(checkpoint!.id)).conversation.pending).toMatchObject([
      { turnId, attempts: 2 },
    ]);

    // Were the turn reopened, the model (answering nothing from now on) would end it a second time, as NO_ANSWER.
    h = await startRuntime({ thinker: model, config, db: h.db, clock: h.clock });
    expect(h.runtime.status().pendingMessages).toBe(0);
    await h.advance(10_000);
    expect((await terminalEvents(h)).filter((e) => e.turnId === turnId).map((e) => e.type)).toEqual(['agent.reply']);
    expect(model.record.filter((r) => r.carried.includes(turnId))).toHaveLength(3);
  });

  it('ends a turn interrupted by a second message and then stuck on every try as TURN_STUCK, once each, across kill -9', async () => {
    model = new ModelThinker({ kind: 'hang' });
    h = await startRuntime({ thinker: model, config: { ...CONFIG, checkpointIntervalBeats: 1 } });
    const first = await h.runtime.send({ text: 'first' });
    const second = await h.runtime.send({ text: 'second' });
    await h.settle();
    // The second message preempted the first think: that try does not count. Two stuck tries, then kill -9.
    expect(h.ofType('agent.preempted')).toHaveLength(1);
    await h.advance(11_000, 500);
    expect(h.ofType('think.failed').map((e) => e.code)).toEqual(['THINK_STUCK', 'THINK_STUCK']);
    await h.crash();
    h.clock.increment(RESTART_MS);
    h = await startRuntime({
      thinker: model,
      config: { ...CONFIG, checkpointIntervalBeats: 1 },
      db: h.db,
      clock: h.clock,
    });
    await h.advance(10_000, 500);

    const terminal = await terminalEvents(h);
    for (const { turnId } of [first, second]) {
      expect(terminal.filter((e) => e.turnId === turnId)).toMatchObject([
        { type: 'agent.unanswered', code: 'TURN_STUCK' },
      ]);
    }
    expect(h.runtime.status().pendingMessages).toBe(0);
  });

  // Found by the property (CONTRACT §7, "never silence ... across kill -9"): the heartbeat learns of a message when
  // `send` delivers USER_MESSAGE, a few promise hops after its append resolved. A beat finishing in between used to
  // checkpoint {watermark: past the message, pending: without it}, and the restore never replayed it. The log now holds
  // a user message back from the watermark until the heartbeat has it.
  it('answers every message of a client awaiting each send while a silent model uses up its tries, when kill -9 follows', async () => {
    model = new ModelThinker({ kind: 'none' });
    h = await startRuntime({ thinker: model, config: CONFIG });
    const sent: string[] = [];
    for (const text of ['one', 'two']) sent.push((await h.runtime.send({ text })).turnId);
    await h.settle();
    // The NO_ANSWER endings of the earlier turns are being written while these are sent.
    for (const text of ['three', 'four', 'five']) sent.push((await h.runtime.send({ text })).turnId);
    await h.crash();
    h.clock.increment(RESTART_MS);
    model.draining = true;
    h = await startRuntime({ thinker: model, config: CONFIG, db: h.db, clock: h.clock });
    await h.advance(5000);

    const terminal = await terminalEvents(h);
    expect(sent.map((turnId) => terminal.filter((e) => e.turnId === turnId).length)).toEqual([1, 1, 1, 1, 1]);
  });

  it('answers a message sent while a refused think settles when kill -9 follows the checkpoint of that beat', async () => {
    model = new ModelThinker({ kind: 'all' });
    model.queue.push({ kind: 'refuse' });
    const config = { ...CONFIG, checkpointIntervalBeats: 1 };
    h = await startRuntime({ thinker: model, config });
    const [refused, lost] = await Promise.all([
      h.runtime.send({ text: 'too long' }),
      h.runtime.send({ text: 'short' }),
    ]);
    await h.crash();
    h.clock.increment(RESTART_MS);
    h = await startRuntime({ thinker: model, config, db: h.db, clock: h.clock });
    await h.advance(5000);

    const terminal = await terminalEvents(h);
    expect(terminal.filter((e) => e.turnId === refused.turnId)).toMatchObject([
      { type: 'agent.unanswered', code: 'THINK_REJECTED' },
    ]);
    expect(terminal.filter((e) => e.turnId === lost.turnId)).toMatchObject([{ type: 'agent.reply' }]);
  });
});
