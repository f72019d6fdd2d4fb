/**
 * The model's own schedules: the `schedule_*` tools answered within the think (the real Anthropic SDK against the fake
 * Messages API), the offline thinker's `/schedule` commands, the model's bound and its own-only removal.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  message,
  pendingTurnIds,
  startFakeMessagesApi,
  toolUse,
  type FakeMessagesApi,
  type RecordedRequest,
} from '../fixtures/fake-messages-api.js';
import { startAnthropicRuntime, type AnthropicHarness } from '../faults/anthropic-harness.js';
import { MAX_MODEL_SCHEDULES } from '../../src/runtime/facade/schedules.facade.js';
import { useRuntimes, type RuntimeHarness } from '../fixtures/runtime.fixture.js';

const start = useRuntimes();
let api: FakeMessagesApi | undefined;
let anthropic: AnthropicHarness | undefined;
afterEach(async () => {
  await anthropic?.runtime.stop().catch(() => undefined);
  await api?.close();
  anthropic = undefined;
  api = undefined;
});

/** Sends `text` and returns the reply to it, running simulated time (bounded) until it comes. */
async function ask(h: RuntimeHarness, text: string): Promise<string> {
  const { turnId } = await h.runtime.send({ text });
  for (let i = 0; i < 50 && !h.ofType('agent.reply').some((e) => e.turnId === turnId); i += 1) await h.advance(200);
  const reply = h.ofType('agent.reply').find((e) => e.turnId === turnId);
  expect(reply, `a reply to ${JSON.stringify(text)}`).toBeDefined();
  return reply!.text;
}

describe('the model’s schedules', () => {
  it('adds, lists and removes its own schedules through /schedule (offline), which then fire as turns', async () => {
    const h = await start();
    const operators = await h.runtime.addSchedule({ text: 'operator tick', everyMs: 7_200_000 });
    const added = await ask(h, '/schedule add {"text":"stretch your legs","everyMs":3600000,"name":"stretch"}');
    expect(added).toMatch(
      /^Scheduled \[(s-[^\]]+)\] "stretch": every 3600000 ms, next 2026-03-01T11:00:0\d.\d{3}Z, last never, catch-up once, set by model/,
    );
    const [mine] = h.runtime.listSchedules().filter((s) => s.createdBy === 'model');
    expect(mine).toMatchObject({ name: 'stretch', text: 'stretch your legs', createdBy: 'model' });
    expect(h.ofType('schedule.changed').map((e) => [e.change, e.createdBy])).toEqual([
      ['added', 'operator'],
      ['added', 'model'],
    ]);

    const listed = await ask(h, '/schedule list');
    expect(listed.split('\n')).toHaveLength(2);
    expect(listed).toContain(`[${operators.id}] "operator tick"`);

    expect(await ask(h, `/schedule remove ${operators.id}`)).toMatch(
      /schedule_remove failed: No schedule with id .* set by the model \(the operator set this one\)/,
    );
    expect(await ask(h, '/schedule add {"text":"bad","cron":"0 25 * * *"}')).toMatch(
      /schedule_add failed: Invalid params for schedules\.add: cron: /,
    );
    expect(await ask(h, '/schedule add {"text":"no timing"}')).toMatch(
      /^Invalid input for schedule_add: cron: give exactly one of cron, everyMs or at/,
    );

    // It fires like any schedule: a turn from schedule:<id>.
    await h.advance(3_600_000 - (h.clock.now() - Date.parse(mine!.createdAt)) + 2000, 1000);
    const fired = h.ofType('schedule.fired').filter((e) => e.scheduleId === mine!.id);
    expect(fired).toHaveLength(1);
    expect(h.ofType('agent.reply').some((e) => e.turnId === fired[0]!.turnId)).toBe(true);

    expect(await ask(h, `/schedule remove ${mine!.id}`)).toBe(`Removed schedule ${mine!.id}.`);
    expect(h.runtime.listSchedules().map((s) => s.id)).toEqual([operators.id]);
  });

  it(`keeps the model to ${MAX_MODEL_SCHEDULES} live schedules of its own`, async () => {
    const h = await start();
    for (let i = 0; i < MAX_MODEL_SCHEDULES; i += 1) {
      expect(await ask(h, `/schedule add {"text":"t${i}","everyMs":3600000}`)).toMatch(/^Scheduled/);
    }
    expect(await ask(h, '/schedule add {"text":"one too many","everyMs":3600000}')).toMatch(
      /schedule_add failed: The model may keep at most 20 schedules/,
    );
    // The operator is not bound by the model's limit.
    await expect(h.runtime.addSchedule({ text: 'operator', everyMs: 3_600_000 })).resolves.toMatchObject({
      createdBy: 'operator',
    });
  });

  it('offers schedule_add, schedule_list and schedule_remove to Claude and answers them within the think', async () => {
    api = await startFakeMessagesApi();
    const replyAll = (r: RecordedRequest) =>
      pendingTurnIds(r).map((turnId) => toolUse('reply', { turnId, text: 'Set.' }));
    api.enqueue(
      {
        kind: 'respond',
        respond: () =>
          message([toolUse('schedule_add', { text: 'weekly review', cron: '0 9 * * 1', timezone: 'Europe/Berlin' })]),
      },
      { kind: 'respond', respond: (r) => message(replyAll({ ...r, body: { messages: [r.body.messages[0]] } })) },
      message([]),
    );
    anthropic = await startAnthropicRuntime(api);
    const { turnId } = await anthropic.runtime.send({ text: 'Remind me every Monday at nine.' });
    for (let i = 0; i < 50 && !anthropic.ofType('agent.reply').some((e) => e.turnId === turnId); i += 1)
      await anthropic.runFor(200);
    const [first] = api.requests;
    expect((first!.body.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(
      expect.arrayContaining(['schedule_add', 'schedule_list', 'schedule_remove']),
    );
    const afterAdd = api.requests.find((r) =>
      (r.body?.messages?.[1]?.content ?? []).some(
        (block: { type: string; name?: string }) => block.type === 'tool_use' && block.name === 'schedule_add',
      ),
    )!;
    const result = afterAdd.body.messages[2].content[0];
    expect(result).toMatchObject({ type: 'tool_result' });
    expect(result.is_error).toBeUndefined();
    expect(result.content).toMatch(
      /^Scheduled \[s-[^\]]+\] "weekly review": cron "0 9 \* \* 1" in Europe\/Berlin, next 2026-03-02T08:00:00.000Z/,
    );
    expect(anthropic.runtime.listSchedules()).toMatchObject([
      { text: 'weekly review', createdBy: 'model', timezone: 'Europe/Berlin' },
    ]);
  });
});
