/** `vigil conversation` in-process against a real gateway: lines and JSON, paging back with --before, exit codes. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatEntry } from '../../src/client/commands/conversation.command.js';
import { startGatewayHarness, type GatewayHarness } from '../gateway/gateway.fixture.js';
import { runCli } from './cli-run.fixture.js';

let h: GatewayHarness;
beforeEach(async () => {
  h = await startGatewayHarness();
});
afterEach(() => h.close());

const run = (argv: string[]) => runCli(h, argv);

/** Sends `texts` and advances simulated time until each has its terminal event (bounded). */
async function converse(texts: string[]): Promise<string[]> {
  const turnIds: string[] = [];
  for (const text of texts) turnIds.push((await h.runtime.send({ text, from: 'operator' })).turnId);
  const ended = () => new Set([...h.ofType('agent.reply'), ...h.ofType('agent.unanswered')].map((e) => e.turnId));
  for (let step = 0; step < 200 && !turnIds.every((id) => ended().has(id)); step += 1) await h.advance(100);
  expect(turnIds.filter((id) => !ended().has(id))).toEqual([]);
  return turnIds;
}

const seqOf = (line: string): number => Number(/^#(\d+) /.exec(line)![1]);

describe('vigil conversation', () => {
  it('prints one line per entry, newest last, and pages back with --before until nothing is older', async () => {
    const turnIds = await converse(['Hello there', 'How are you today?', 'Thanks, that is all']);
    const all = await h.runtime.listConversation({ limit: 1000 });
    expect(all).toHaveLength(6);

    const first = await run(['conversation', '--limit', '4']);
    expect(first.code).toBe(0);
    const newest = first.stdout.trimEnd().split('\n');
    expect(newest.map(seqOf)).toEqual(all.slice(2).map((e) => e.seq));
    const asked = all.find((e) => e.turnId === turnIds[2] && e.role === 'user')!;
    const answered = all.find((e) => e.turnId === turnIds[2] && e.role === 'agent')!;
    expect(newest).toContain(`#${asked.seq} ${asked.at} user (operator) ${turnIds[2]}: Thanks, that is all`);
    expect(newest).toContain(`#${answered.seq} ${answered.at} agent ${turnIds[2]}: ${answered.text}`);
    // A full page says how to go on.
    expect(first.stderr).toContain(`vigil conversation --before ${all[2]!.seq}`);

    const second = await run(['conversation', '--limit', '4', '--before', String(all[2]!.seq)]);
    expect(second.code).toBe(0);
    expect(second.stdout.trimEnd().split('\n').map(seqOf)).toEqual(all.slice(0, 2).map((e) => e.seq));
    expect(second.stderr).toBe('');

    const third = await run(['conversation', '--before', String(all[0]!.seq)]);
    expect({ code: third.code, stdout: third.stdout, stderr: third.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: 'vigil: no entries.\n',
    });
  });

  it('prints the entries as JSON with --json, exactly as conversation.list answers', async () => {
    await converse(['Good morning']);
    const { code, stdout } = await run(['conversation', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(await h.runtime.listConversation({}));
    expect(JSON.parse(stdout)).toMatchObject([
      { role: 'user', from: 'operator', text: 'Good morning' },
      { role: 'agent' },
    ]);
  });

  it('keeps a multi-line or hostile text on its one line', async () => {
    await converse(['first line\nsecond line\u001b[31m red?']);
    const { code, stdout } = await run(['conversation']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/: first line\\nsecond line\\u001b\[31m red\?$/);
  });

  it('marks an entry that ended a turn without an answer with its code', () => {
    const line = formatEntry({
      seq: 9,
      turnId: 't-3',
      role: 'agent',
      text: 'The agent ended 3 thinks without answering this message.',
      at: '2026-03-01T10:00:00.000Z',
      unanswered: { code: 'NO_ANSWER', reason: 'The agent ended 3 thinks without answering this message.' },
    });
    expect(line).toBe(
      '#9 2026-03-01T10:00:00.000Z agent t-3 UNANSWERED NO_ANSWER: The agent ended 3 thinks without answering this message.',
    );
  });

  it('exits 2 for bad usage: a bad --limit or --before, an argument, an unknown flag', async () => {
    const bad = [
      ['--limit', '0'],
      ['--limit', '1001'],
      ['--limit', 'ten'],
      ['--before', '0'],
      ['--before', '-3'],
      ['--before', '99999999999999999999'],
      ['--before'],
      ['everything'],
      ['--since', '3'],
    ];
    for (const argv of bad) {
      const { code, stderr } = await run(['conversation', ...argv]);
      expect({ argv, code }).toEqual({ argv, code: 2 });
      expect(stderr).toMatch(/usage: vigil conversation/);
    }
  });

  it('exits 1 when no daemon listens', async () => {
    const { code, stderr } = await run(['conversation', '--url', 'http://127.0.0.1:1']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/No connection to the gateway/);
  });
});
