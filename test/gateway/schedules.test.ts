/** `schedules.*`, the typed client, `vigil schedules …` and `rpc.discover` over a real gateway. */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { parseDuration } from '../../src/client/commands/schedules.command.js';
import { connect } from '../../src/client/vigil-client.js';
import { ScheduleViewSchema } from '../../src/protocol/schedules.schema.js';
import { cliIo, startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('schedules over the gateway', () => {
  it('adds, lists, pauses, resumes and removes; bad input is -32602 naming the field, an unknown id -32004', async () => {
    h = await startGatewayHarness({ runtime: { config: { timezone: 'Europe/Berlin' } } });
    const harness = h;
    const raw = await harness.connect();

    const added = await raw.request('schedules.add', { text: 'weekday standup', cron: '0 9 * * 1-5', catchUp: 'skip' });
    const schedule = ScheduleViewSchema.parse(added.result);
    // The default zone is VIGIL_TIMEZONE; 2026-03-02 is a Monday, 09:00 CET is 08:00Z.
    expect(schedule).toMatchObject({
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      catchUp: 'skip',
      maxCatchUp: 10,
      nextAt: '2026-03-02T08:00:00.000Z',
      paused: false,
    });
    expect(ScheduleViewSchema.array().parse((await raw.request('schedules.list')).result)).toEqual([schedule]);

    const noTiming = await raw.request('schedules.add', { text: 'x' });
    expect(noTiming.error).toMatchObject({ code: -32602, data: [{ path: ['cron'], vigilCode: 'RPC_INVALID_PARAMS' }] });
    const badCron = await raw.request('schedules.add', { text: 'x', cron: '0 25 * * *' });
    expect(badCron.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/cron: .*hour/),
      data: [{ path: ['cron'] }],
    });
    const both = await raw.request('schedules.add', { text: 'x', cron: '* * * * *', at: '2026-03-02T08:00:00Z' });
    expect(both.error).toMatchObject({ code: -32602, data: [{ path: ['at'] }] });
    const tooFast = await raw.request('schedules.add', { text: 'x', everyMs: 5000 });
    expect(tooFast.error).toMatchObject({ code: -32602, data: [{ path: ['everyMs'] }] });
    // One minute is the shortest interval (CONTRACT §11): a millisecond under it is refused naming everyMs, it is not.
    const underAMinute = await raw.request('schedules.add', { text: 'x', everyMs: 59_999 });
    expect(underAMinute.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/everyMs: expected at least 60000 ms/),
      data: [{ path: ['everyMs'] }],
    });
    const aMinute = await raw.request('schedules.add', { text: 'x', everyMs: 60_000, name: 'a minute' });
    expect(aMinute.result).toMatchObject({ everyMs: 60_000 });
    expect((await raw.request('schedules.remove', { id: (aMinute.result as { id: string }).id })).result).toBe(true);
    for (const method of ['schedules.remove', 'schedules.pause', 'schedules.resume']) {
      expect((await raw.request(method, { id: 's-nope' })).error).toMatchObject({
        code: -32004,
        data: { vigilCode: 'SCHEDULE_NOT_FOUND', id: 's-nope' },
      });
    }

    // The typed client.
    const client = await connect({ url: harness.gateway.url, token: TEST_TOKEN, reconnect: false });
    try {
      expect(await harness.until(client.schedules.pause({ id: schedule.id }))).toMatchObject({
        paused: true,
        nextAt: null,
      });
      expect(await harness.until(client.schedules.resume({ id: schedule.id }))).toMatchObject({
        paused: false,
        nextAt: '2026-03-02T08:00:00.000Z',
      });
    } finally {
      await client.close();
    }

    // The CLI.
    const addIo = cliIo(harness);
    expect(
      await harness.until(
        main(['schedules', 'add', 'drink', 'water', '--every', '2h', '--name', 'water', '--json'], addIo),
      ),
    ).toBe(0);
    const water = ScheduleViewSchema.parse(JSON.parse(addIo.out()));
    expect(water).toMatchObject({ text: 'drink water', everyMs: 7_200_000, name: 'water', catchUp: 'once' });
    const listIo = cliIo(harness);
    expect(await harness.until(main(['schedules', 'list'], listIo))).toBe(0);
    expect(listIo.out().trim().split('\n')).toEqual([
      `${schedule.id}\tweekday standup\tcron "0 9 * * 1-5" Europe/Berlin\tnext 2026-03-02T08:00:00.000Z\tlast -\tcatch-up skip\toperator`,
      `${water.id}\twater\tevery 7200000 ms\tnext ${water.nextAt}\tlast -\tcatch-up once\toperator`,
    ]);
    const removeIo = cliIo(harness);
    expect(await harness.until(main(['schedules', 'remove', water.id], removeIo))).toBe(0);
    expect(removeIo.out()).toBe(`removed ${water.id}\n`);
    const badIo = cliIo(harness);
    // --json: the JSON-RPC error object as sent (without it, one human line; test/client/cli-server-errors.test.ts).
    expect(await harness.until(main(['schedules', 'add', 'x', '--cron', '0 25 * * *', '--json'], badIo))).toBe(1);
    expect(JSON.parse(badIo.err())).toMatchObject({ code: -32602 });
    expect(await main(['schedules', 'add', 'x'], cliIo(harness))).toBe(2);
    expect(await main(['schedules', 'add', 'x', '--every', '1h', '--at', '2026-03-02T08:00:00Z'], cliIo(harness))).toBe(
      2,
    );
    expect(await main(['schedules', 'remove'], cliIo(harness))).toBe(2);
    const tooShortIo = cliIo(harness);
    expect(await main(['schedules', 'add', 'x', '--every', '59s'], tooShortIo)).toBe(2);
    expect(tooShortIo.err()).toMatch(/--every "59s" is too short: the shortest interval is 1m \(60000 ms\)/);
    expect(await main(['schedules', 'frob'], cliIo(harness))).toBe(2);

    const discovered = await raw.request('rpc.discover');
    const methods = (discovered.result as { methods: Array<{ name: string; errors: Array<{ code: number }> }> })
      .methods;
    expect(methods.map((m) => m.name)).toEqual(
      expect.arrayContaining([
        'schedules.list',
        'schedules.add',
        'schedules.remove',
        'schedules.pause',
        'schedules.resume',
      ]),
    );
    expect(methods.find((m) => m.name === 'schedules.remove')?.errors.map((e) => e.code)).toContain(-32004);
  });

  it('reads durations for --every', () => {
    expect(parseDuration('90000')).toBe(90_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(() => parseDuration('soon')).toThrow(/--every/);
  });
});
