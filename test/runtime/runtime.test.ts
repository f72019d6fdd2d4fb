import { describe, expect, it } from 'vitest';
import { isVigilError } from '../../src/errors.js';
import { OfflineThinker } from '../../src/subsystems/thinking/offline-thinker.js';
import { useRuntimes } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

const start = useRuntimes();

async function expectCode(promise: Promise<unknown> | (() => unknown), code: string): Promise<unknown> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (err) {
    expect(isVigilError(err) ? err.code : err).toBe(code);
    return err;
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

describe('Runtime', () => {
  it('beats sense → think → integrate → sleep and reports each phase in heartbeat.beat', async () => {
    const h = await start();
    await h.advance(3000);
    const beats = h.ofType('heartbeat.beat');
    expect(beats.map((b) => b.beatCount)).toEqual([1, 2, 3]);
    expect(beats[0]).toMatchObject({ intervalMs: 1000, phaseMs: { sense: expect.any(Number), think: 0 } });
    expect(h.runtime.status()).toMatchObject({ beatCount: 3, phase: 'sleep', state: 'awake', restoredFrom: null });
  });

  it('calls no thinker on an idle beat', async () => {
    const thinker = new ScriptedThinker();
    const h = await start({ thinker });
    await h.advance(20_000);
    expect(h.runtime.status().beatCount).toBe(20);
    expect(thinker.calls).toHaveLength(0);
  });

  it('answers a user message with agent.reply and counts unread replies until the next message', async () => {
    const thinker = new ScriptedThinker();
    const h = await start({ thinker });
    const { turnId } = await h.runtime.send({ text: 'hello there' });
    await h.advance(1000);
    expect(h.ofType('agent.message')).toMatchObject([{ turnId, text: 'hello there', from: 'user' }]);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId, text: 're: hello there' }]);
    expect(thinker.calls[0]).toMatchObject({ reason: 'user_message', turnId, pendingMessages: [{ turnId }] });
    expect(h.runtime.status().unreadReplies).toBe(1);
    await h.runtime.send({ text: 'again', from: 'ops' });
    expect(h.runtime.status().unreadReplies).toBe(0);
  });

  it('adds, lists and completes goals; an unknown id is GOAL_NOT_FOUND', async () => {
    const h = await start({ thinker: new ScriptedThinker() });
    const goal = h.runtime.addGoal({ title: 'Write the report', priority: 8, dueAt: '2026-03-02T00:00:00.000Z' });
    expect(goal).toMatchObject({
      title: 'Write the report',
      priority: 8,
      progress: 0,
      status: 'active',
      dueAt: '2026-03-02T00:00:00.000Z',
    });
    expect(h.runtime.listGoals()).toEqual([goal]);
    expect(h.runtime.completeGoal(goal.id)).toMatchObject({ status: 'completed', progress: 1 });
    await expectCode(() => h.runtime.completeGoal('g-nope'), 'GOAL_NOT_FOUND');
  });

  it('makes visible progress on the most urgent goal with the offline thinker', async () => {
    const h = await start({ thinker: new OfflineThinker() });
    const goal = h.runtime.addGoal({ title: 'Tidy the notes' });
    await h.advance(30_000);
    const progressed = h.runtime.listGoals().find((g) => g.id === goal.id)!;
    expect(progressed.progress).toBeGreaterThan(0);
    expect(h.ofType('goal.updated').length).toBeGreaterThan(0);
    expect(h.runtime.listMemory().length).toBeGreaterThan(0);
  });

  it('creates a checkpoint on request at the next beat boundary and lists it newest first', async () => {
    const h = await start({ config: { checkpointEnabled: false } });
    await h.advance(2000);
    const created = h.runtime.createCheckpoint();
    await h.settle();
    const result = await created;
    expect(result).toMatchObject({ beatCount: h.runtime.status().beatCount, sizeBytes: expect.any(Number) });
    const list = await h.runtime.listCheckpoints();
    expect(list).toEqual([
      {
        id: result.id,
        createdAt: expect.any(String),
        beatCount: result.beatCount,
        sizeBytes: result.sizeBytes,
        formatVersion: 2,
      },
    ]);
    expect(h.ofType('checkpoint.created')).toMatchObject([{ checkpointId: result.id }]);
    expect((await h.runtime.getCheckpoint(result.id)).beatCount).toBe(result.beatCount);
  });

  it('checkpoints every N beats and prunes to the newest max count', async () => {
    const h = await start({ config: { checkpointIntervalBeats: 2, checkpointMaxCount: 3 } });
    await h.advance(20_000);
    expect(h.ofType('checkpoint.created').length).toBe(10);
    const list = await h.runtime.listCheckpoints();
    expect(list.map((c) => c.beatCount)).toEqual([20, 18, 16]);
  });

  it('restores a checkpoint only with confirm, swapping state at a beat boundary and archiving later messages', async () => {
    const h = await start({ thinker: new ScriptedThinker() });
    const kept = h.runtime.addGoal({ title: 'kept' });
    await h.advance(5000);
    const [first] = await h.runtime.listCheckpoints();
    expect(first).toBeDefined();
    h.runtime.addGoal({ title: 'added after the checkpoint' });
    await h.runtime.send({ text: 'after the checkpoint' });
    await h.advance(3000);

    const err = await expectCode(h.runtime.restoreCheckpoint(first!.id), 'CHECKPOINT_CONFIRMATION_REQUIRED');
    expect((err as { data: unknown }).data).toEqual({
      id: first!.id,
      beatCount: first!.beatCount,
      createdAt: first!.createdAt,
    });
    await expectCode(h.runtime.restoreCheckpoint('ck-missing', { confirm: true }), 'CHECKPOINT_NOT_FOUND');

    const restoring = h.runtime.restoreCheckpoint(first!.id, { confirm: true });
    await h.settle();
    expect(await restoring).toEqual({ restored: first!.id, beatCount: first!.beatCount });
    expect(h.runtime.listGoals().map((g) => g.id)).toEqual([kept.id]);
    expect(h.runtime.status()).toMatchObject({ beatCount: first!.beatCount, restoredFrom: first!.id });
    expect(h.ofType('checkpoint.restored').at(-1)).toMatchObject({
      checkpointId: first!.id,
      beatsRecovered: first!.beatCount,
    });
    // The message and its reply, logged after the checkpoint, are archived with the restore, not deleted.
    const conversation = await h.conversation();
    const [archive] = await conversation.listArchives();
    expect(archive).toMatchObject({ count: 2 });
    expect((await conversation.readArchive(archive!.archiveId)).map((m) => m.text)).toEqual([
      'after the checkpoint',
      're: after the checkpoint',
    ]);
    expect(conversation.watermark()).toBe(0);
    await h.advance(1000);
    expect(h.runtime.status().beatCount).toBe(first!.beatCount + 1);
  });

  it('refuses a second restore while one is running with CHECKPOINT_RESTORE_BUSY', async () => {
    const h = await start();
    await h.advance(5000);
    const [cp] = await h.runtime.listCheckpoints();
    const a = h.runtime.restoreCheckpoint(cp!.id, { confirm: true });
    await Promise.resolve();
    const b = h.runtime.restoreCheckpoint(cp!.id, { confirm: true }).catch((err: unknown) => err);
    await h.settle();
    await expect(a).resolves.toMatchObject({ restored: cp!.id });
    expect(await b).toMatchObject({ code: 'CHECKPOINT_RESTORE_BUSY' });
  });

  it('resumes from the final checkpoint after a clean stop: beats, goals, memory and affect', async () => {
    const thinker = new OfflineThinker();
    const h = await start({ thinker });
    h.runtime.addGoal({ title: 'Survive restarts', priority: 9 });
    await h.runtime.send({ text: 'remember the launch code is blue. Great work!' });
    await h.advance(4000);
    const before = {
      beat: h.runtime.status().beatCount,
      goals: h.runtime.listGoals(),
      memory: h.runtime.listMemory(),
      affect: h.runtime.getAffect(),
    };
    await h.runtime.stop();

    const again = await start({ db: h.db, clock: h.clock, thinker });
    expect(again.runtime.status().restoredFrom).not.toBeNull();
    expect(again.runtime.status().beatCount).toBe(before.beat);
    expect(again.runtime.listGoals()).toEqual(before.goals);
    expect(again.runtime.listMemory().map((m) => m.content)).toEqual(before.memory.map((m) => m.content));
    expect(again.runtime.getAffect().valence).toBeCloseTo(before.affect.valence, 2);
    expect(again.ofType('checkpoint.restored')).toMatchObject([{ beatsRecovered: before.beat }]);
  });

  it('replays messages logged after the newest checkpoint: an unanswered one is answered after a crash', async () => {
    const thinker = new ScriptedThinker();
    const h = await start({ thinker, config: { checkpointIntervalBeats: 1000 } });
    await h.advance(1000);
    const saved = h.runtime.createCheckpoint();
    await h.settle();
    await saved;
    // Simulate a crash right after the message was logged: the heartbeat never saw it.
    await (
      await h.conversation()
    ).append({ turnId: 't-lost', role: 'user', text: 'are you there?', from: 'user', at: h.clock.now() });
    const again = await start({ db: h.db, clock: h.clock, thinker });
    // Thought about at once on boot, not a beat later: no simulated time passes.
    expect(again.ofType('agent.reply')).toMatchObject([{ turnId: 't-lost', text: 're: are you there?' }]);
    expect(again.runtime.status().pendingMessages).toBe(0);
  });

  it('runs swarm tasks as child actors and feeds their results to the next think', async () => {
    const thinker = new ScriptedThinker((input) => {
      if (input.reason === 'user_message') return [{ type: 'spawn_task', prompt: 'look into tides' }];
      if (input.reason === 'swarm_results') {
        return input.swarmResults.map((r) => ({ type: 'reply' as const, turnId: r.turnId, text: `found: ${r.text}` }));
      }
      return [];
    });
    const h = await start({ thinker });
    const { turnId } = await h.runtime.send({ text: 'research tides' });
    await h.advance(3000);
    expect(thinker.tasks).toMatchObject([{ prompt: 'look into tides' }]);
    expect(h.ofType('swarm.task_finished')).toMatchObject([{ status: 'done' }]);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId, text: 'found: done: look into tides' }]);
  });
});
