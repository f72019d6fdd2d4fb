/** `vigil memory search` and `vigil memory forget` in-process against a real gateway: lines and JSON, exit codes. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../gateway/gateway.fixture.js';
import { runCli } from './cli-run.fixture.js';

let h: GatewayHarness;
beforeEach(async () => {
  h = await startGatewayHarness();
});
afterEach(() => h.close());

const run = (argv: string[]) => runCli(h, argv);

/** Asks the offline agent to remember `fact` and waits (bounded, in simulated time) until it is in long-term memory. */
async function remember(fact: string): Promise<void> {
  await h.runtime.send({ text: `Remember that ${fact}`, from: 'operator' });
  for (let step = 0; step < 100 && (await h.runtime.searchMemory({ query: fact })).length === 0; step += 1)
    await h.advance(100);
  expect((await h.runtime.searchMemory({ query: fact })).length).toBeGreaterThan(0);
}

describe('vigil memory', () => {
  it('prints one line per hit and the hits as JSON with --json, then forgets one by id', async () => {
    await remember('the boiler is serviced in October');
    const lines = await run(['memory', 'search', 'boiler', 'service']);
    expect(lines.code).toBe(0);
    const [line] = lines.stdout.trimEnd().split('\n');
    expect(line).toMatch(
      /^mem-\d+\t\d+\.\d\d\tconversation\t\d{4}-\d\d-\d\dT[^\t]+\tthe boiler is serviced in October$/,
    );

    const json = await run(['memory', 'search', 'boiler', '--limit', '1', '--json']);
    const hits = JSON.parse(json.stdout) as Array<{ id: string; content: string }>;
    expect(hits).toEqual([
      expect.objectContaining({ content: 'the boiler is serviced in October', source: 'conversation' }),
    ]);

    const forgot = await run(['memory', 'forget', hits[0]!.id]);
    expect(forgot).toMatchObject({ code: 0, stdout: `forgot ${hits[0]!.id}\n` });
    const none = await run(['memory', 'search', 'boiler']);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toContain('no long-term memory matches');
  });

  it('exits 1 with one human line for an unknown id, and 2 for bad usage', async () => {
    const unknown = await run(['memory', 'forget', 'mem-999']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^vigil: .*mem-999.* `vigil memory search WORDS` shows what there is\.\n$/);
    for (const argv of [
      ['memory'],
      ['memory', 'search'],
      ['memory', 'search', 'x', '--limit', '0'],
      ['memory', 'forget'],
      ['memory', 'forget', 'a', 'b'],
      ['memory', 'list'],
    ]) {
      const bad = await run(argv);
      expect(bad.code, argv.join(' ')).toBe(2);
      expect(bad.stderr).toContain('usage: vigil memory search');
    }
  });
});
