import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Goal } from '../../../src/actors/goals/goals.schema.js';
import { isVigilError } from '../../../src/errors.js';
import { OfflineThinker } from '../../../src/subsystems/thinking/offline-thinker.js';
import {
  SwarmTaskOutputSchema,
  ThinkResultSchema,
  type PendingMessage,
  type ThinkAction,
  type ThinkInput,
} from '../../../src/subsystems/thinking/thinker.schema.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');

function goal(id: string, title: string, priority: number, progress = 0): Goal {
  return { id, title, priority, progress, status: 'active', createdAt: NOW - 1000, updatedAt: NOW - 1000 };
}

function message(text: string, turnId = 't-user-1'): PendingMessage {
  return { turnId, text, from: 'ada', at: NOW - 10 };
}

function input(overrides: Partial<ThinkInput> = {}): ThinkInput {
  return {
    identity: 'You are Vigil.',
    reason: 'user_message',
    turnId: 't-user-1',
    now: NOW,
    affect: { valence: 0.1, arousal: 0.3, dominance: 0, certainty: 0.5, goalCongruence: 0 },
    workingMemory: [
      { id: 'm1', content: 'the sky is blue', salience: 0.5, createdAt: NOW - 5000, lastAttendedAt: NOW - 5000 },
      { id: 'm2', content: 'ada likes tea', salience: 0.6, createdAt: NOW - 2000, lastAttendedAt: NOW - 2000 },
    ],
    goals: [goal('g-low', 'tidy notes', 2), goal('g-high', 'write the report', 8, 0.4)],
    pendingMessages: [],
    swarmResults: [],
    notices: [],
    ...overrides,
  };
}

const live = (): AbortSignal => new AbortController().signal;
const thinker = new OfflineThinker();

function ofType<T extends ThinkAction['type']>(actions: ThinkAction[], type: T): Extract<ThinkAction, { type: T }>[] {
  return actions.filter((a): a is Extract<ThinkAction, { type: T }> => a.type === type);
}

async function actionsFor(text: string, extra: Partial<ThinkInput> = {}): Promise<ThinkAction[]> {
  return (await thinker.think(input({ pendingMessages: [message(text)], ...extra }), live())).actions;
}

describe('OfflineThinker', () => {
  it('gives the same output for the same input', async () => {
    const i = input({ pendingMessages: [message('Hello!'), message('remember the milk', 't-user-2')] });
    expect(await thinker.think(i, live())).toEqual(await thinker.think(structuredClone(i), live()));
  });

  it('reports zero usage, the configured model and the configured cost', async () => {
    const result = await new OfflineThinker({ model: 'sim', costPerThinkMicroUsd: 1500 }).think(input(), live());
    expect(result).toEqual({
      model: 'sim',
      actions: [],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costMicroUsd: 1500,
      // No model calls: the trace has none, and the state it read as sections.
      trace: expect.objectContaining({ calls: [], toolCalls: [], stopReason: 'end_turn' }),
    });
  });

  it('defaults to model "offline" at no cost', async () => {
    expect(await thinker.think(input(), live())).toMatchObject({ model: 'offline', costMicroUsd: 0 });
  });

  it('rejects a cost that is not a whole number of micro-dollars', () => {
    expect(() => new OfflineThinker({ costPerThinkMicroUsd: -1 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => new OfflineThinker({ costPerThinkMicroUsd: 0.5 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  describe('user messages', () => {
    it('replies to each message, notes the exchange and feels about it, in that order', async () => {
      const actions = (
        await thinker.think(input({ pendingMessages: [message('nice weather', 't-a'), message('hmm', 't-b')] }), live())
      ).actions;
      expect(actions.map((a) => a.type)).toEqual(['reply', 'remember', 'feel', 'reply', 'remember', 'feel']);
      expect(ofType(actions, 'reply').map((r) => r.turnId)).toEqual(['t-a', 't-b']);
      expect(ofType(actions, 'remember').every((r) => r.salience === 0.5)).toBe(true);
    });

    it('greets back on a greeting, naming the sender and the focus goal', async () => {
      const [reply] = ofType(await actionsFor('Hello there'), 'reply');
      expect(reply?.text).toContain('Hello ada!');
      expect(reply?.text).toContain('write the report');
    });

    it('answers a question with its focus goal, mood and memory count', async () => {
      const [reply] = ofType(await actionsFor('What are you doing?'), 'reply');
      expect(reply?.text).toContain('"write the report" (40% done)');
      expect(reply?.text).toContain('I feel calm');
      expect(reply?.text).toContain('2 items in working memory');
    });

    it('answers about the focus goal named by focusGoalId', async () => {
      const [reply] = ofType(await actionsFor('how is it going?', { focusGoalId: 'g-low' }), 'reply');
      expect(reply?.text).toContain('tidy notes');
    });

    it('remembers what "remember X" asks for', async () => {
      const actions = await actionsFor('Please remember that the door code is 4711.');
      expect(ofType(actions, 'remember')[0]).toEqual({
        type: 'remember',
        content: 'the door code is 4711',
        salience: 0.8,
        keep: true,
      });
      expect(ofType(actions, 'reply')[0]?.text).toContain('the door code is 4711');
    });

    it.each(['goal: ship v1', 'add goal ship v1', 'Add a goal: ship v1!', 'could you add a new goal to ship v1'])(
      'adds a goal for %j',
      async (text) => {
        expect(ofType(await actionsFor(text), 'goal_add')).toEqual([{ type: 'goal_add', title: 'ship v1' }]);
      },
    );

    it.each(['research tide pools', 'look into tide pools', 'Hi Vigil, can you research tide pools?'])(
      'spawns a task for %j',
      async (text) => {
        expect(ofType(await actionsFor(text), 'spawn_task')).toEqual([
          { type: 'spawn_task', prompt: 'Research: tide pools' },
        ]);
      },
    );

    it('adds no goal and spawns no task while winding down, and says so', async () => {
      const notices = ['Budget at 92%: wind down. Finish this turn, then sleep.'];
      for (const text of ['goal: ship v1', 'research tide pools']) {
        const actions = await actionsFor(text, { notices });
        expect(ofType(actions, 'goal_add')).toEqual([]);
        expect(ofType(actions, 'spawn_task')).toEqual([]);
        expect(ofType(actions, 'reply')[0]?.text).toContain('winding down');
      }
    });

    it('reflects on anything else, quoting a short excerpt', async () => {
      const long =
        'The quarterly numbers came in and they look rather different from what everyone expected last spring';
      const [reply] = ofType(await actionsFor(long), 'reply');
      expect(reply?.text).toMatch(/^You said: "The quarterly numbers.*…"\./);
      expect(reply?.text.length).toBeLessThan(long.length + 40);
    });

    it('feels good about praise, bad about trouble, aroused by urgency and unsure at questions', async () => {
      const feel = async (text: string) => ofType(await actionsFor(text), 'feel')[0]?.delta ?? {};
      expect((await feel('great work, thanks')).valence).toBeGreaterThan(0);
      expect((await feel('this is broken and wrong')).valence).toBeLessThan(0);
      expect((await feel('not good')).valence).toBeLessThan(0);
      expect((await feel('urgent!!!')).arousal).toBeGreaterThan((await feel('ok')).arousal ?? 0);
      expect((await feel('is it done?')).certainty).toBeLessThan(0);
    });
  });

  describe('goal work', () => {
    it('makes progress on the focus goal, notes the step and feels a little better', async () => {
      const { actions } = await thinker.think(
        input({ reason: 'goal_work', turnId: 't-auto-1', focusGoalId: 'g-low' }),
        live(),
      );
      expect(actions[0]).toEqual({ type: 'goal_progress', goalId: 'g-low', delta: 0.1 });
      expect(ofType(actions, 'remember')[0]?.content).toContain('tidy notes');
      expect(ofType(actions, 'feel')[0]?.delta.goalCongruence).toBeGreaterThan(0);
    });

    it('steps only what remains of a nearly finished goal', async () => {
      const goals = [goal('g1', 'almost there', 5, 0.95)];
      const { actions } = await thinker.think(input({ reason: 'goal_work', goals, focusGoalId: 'g1' }), live());
      expect(actions[0]).toEqual({ type: 'goal_progress', goalId: 'g1', delta: 0.05 });
      expect(ofType(actions, 'remember')[0]?.content).toContain('Finished');
    });

    it('falls back to the highest-priority active goal without a focus', async () => {
      const { actions } = await thinker.think(input({ reason: 'goal_work' }), live());
      expect(actions[0]).toMatchObject({ type: 'goal_progress', goalId: 'g-high' });
    });

    it('does nothing without active goals', async () => {
      expect((await thinker.think(input({ reason: 'goal_work', goals: [] }), live())).actions).toEqual([]);
    });
  });

  describe('swarm results', () => {
    it('remembers each result and replies to the turn that asked', async () => {
      const swarmResults = [
        {
          taskId: 'k1',
          turnId: 't-user-7',
          prompt: 'Research: tide pools',
          status: 'done' as const,
          text: 'Tide pools host anemones.',
        },
        { taskId: 'k2', turnId: 't-user-8', prompt: 'Research: comets', status: 'failed' as const, text: 'timed out' },
      ];
      const { actions } = await thinker.think(input({ reason: 'swarm_results', swarmResults }), live());
      expect(ofType(actions, 'remember').map((r) => r.salience)).toEqual([0.6, 0.6]);
      expect(ofType(actions, 'remember')[0]?.content).toContain('Tide pools host anemones.');
      const replies = ofType(actions, 'reply');
      expect(replies.map((r) => r.turnId)).toEqual(['t-user-7', 't-user-8']);
      expect(replies[1]?.text).toContain('timed out');
    });
  });

  describe('debrief', () => {
    it('remembers what it was doing and does not reply', async () => {
      const { actions } = await thinker.think(
        input({ reason: 'debrief', notices: ['Debrief: what were you doing?'] }),
        live(),
      );
      expect(actions).toHaveLength(1);
      expect(actions[0]).toMatchObject({ type: 'remember', salience: 0.7 });
      const content = (actions[0] as Extract<ThinkAction, { type: 'remember' }>).content;
      expect(content).toContain('write the report');
      expect(content).toContain('ada likes tea');
    });
  });

  describe('abort', () => {
    it('rejects with THINK_ABORTED when aborted before it starts', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(thinker.think(input({ pendingMessages: [message('hi')] }), controller.signal)).rejects.toMatchObject(
        { code: 'THINK_ABORTED' },
      );
      await expect(
        thinker.runTask({ taskId: 'k', prompt: 'p', identity: '' }, controller.signal),
      ).rejects.toMatchObject({ code: 'THINK_ABORTED' });
    });

    it('rejects with THINK_ABORTED when aborted while it runs', async () => {
      for (const extra of [{ pendingMessages: [message('hi'), message('there')] }, {}]) {
        const controller = new AbortController();
        const pending = thinker.think(input(extra), controller.signal);
        controller.abort(new Error('preempted'));
        const err: unknown = await pending.catch((e: unknown) => e);
        expect(isVigilError(err, 'THINK_ABORTED')).toBe(true);
      }
      const controller = new AbortController();
      const task = thinker.runTask({ taskId: 'k', prompt: 'p', identity: '' }, controller.signal);
      controller.abort();
      await expect(task).rejects.toMatchObject({ code: 'THINK_ABORTED' });
    });
  });

  describe('runTask', () => {
    it('summarises the prompt deterministically at the configured cost', async () => {
      const t = new OfflineThinker({ costPerThinkMicroUsd: 7 });
      const task = { taskId: 'k1', prompt: 'Research: tide pool ecology', identity: '' };
      const out = await t.runTask(task, live());
      expect(SwarmTaskOutputSchema.parse(out)).toEqual(out);
      expect(out.text).toMatch(/^Findings on "Research: tide pool ecology": /);
      expect(out.text).toContain('ecology');
      expect(out).toMatchObject({ costMicroUsd: 7, model: 'offline', usage: { inputTokens: 0, outputTokens: 0 } });
      expect(await t.runTask(task, live())).toEqual(out);
    });
  });

  describe('properties', () => {
    const prefixes = [
      '',
      'hi ',
      'remember ',
      'goal: ',
      'add goal ',
      'research ',
      'look into ',
      'what ',
      'please remember that ',
    ];
    const text = fc
      .tuple(
        fc.constantFrom(...prefixes),
        fc.string({ unit: 'grapheme', maxLength: 120 }),
        fc.constantFrom('', '?', '!', '.'),
      )
      .map((p) => p.join(''));
    const reason = fc.constantFrom<ThinkInput['reason']>('user_message', 'goal_work', 'swarm_results', 'debrief');

    it('always returns a valid result, the same for the same input', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(text, { maxLength: 4 }), reason, fc.boolean(), async (texts, why, windDown) => {
          const i = input({
            reason: why,
            pendingMessages: texts.map((t, n) => message(t, `t-user-${n}`)),
            swarmResults: texts
              .slice(0, 1)
              .map((t) => ({ taskId: 'k', turnId: 't-user-0', prompt: t, status: 'done' as const, text: t })),
            notices: windDown ? ['wind down now'] : [],
          });
          const first = await thinker.think(i, live());
          expect(ThinkResultSchema.parse(first)).toEqual(first);
          expect(await thinker.think(structuredClone(i), live())).toEqual(first);
          expect(ofType(first.actions, 'reply').length).toBeGreaterThanOrEqual(texts.length);
        }),
        { numRuns: 200 },
      );
    });

    it('always returns a valid task output', async () => {
      await fc.assert(
        // Graphemes rather than 'binary' units: fast-check builds those slowly; the lone surrogate is checked by example below.
        fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), async (prompt) => {
          const out = await thinker.runTask({ taskId: 'k', prompt, identity: '' }, live());
          expect(SwarmTaskOutputSchema.parse(out)).toEqual(out);
        }),
      );
      const odd = await thinker.runTask({ taskId: 'k', prompt: `${'x'.repeat(79)}\ud83d tail`, identity: '' }, live());
      expect(SwarmTaskOutputSchema.parse(odd)).toEqual(odd);
    });
  });
});
