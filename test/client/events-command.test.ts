/**
 * `vigil events`: JSON lines when piped or with --json (every event, as before), short lines on a terminal without
 * heartbeat.beat unless asked for, an unknown --types refused with the nearest names; and the figures it shows
 * rounded where they are made (phase timings, goal progress).
 */
import { readFile } from 'node:fs/promises';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { formatEventLine, showsBeats } from '../../src/client/commands/event-line.js';
import { unknownTypePattern } from '../../src/client/commands/event-type-patterns.js';
import type { FeedEvent } from '../../src/client/client-core.js';
import { goalsReducer, initialGoalsState } from '../../src/actors/goals/goals.reducer.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from '../gateway/gateway.fixture.js';

let h: GatewayHarness;
beforeAll(async () => {
  // Loaded once here, so the import costs no turns of the loop inside `until` (which advances simulated time).
  await import('../../src/client/commands/events.command.js');
});
beforeEach(async () => {
  h = await startGatewayHarness();
});
afterEach(() => h.close());

/** Starts `vigil events …` in-process; `stop` stands for Ctrl-C and resolves to the exit code and what it printed. */
function events(argv: string[], stdoutIsTerminal: boolean) {
  let stdout = '';
  let stderr = '';
  let interrupt!: () => void;
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  const io: CliIo = {
    env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: new URL(h.gateway.url).port, VIGIL_TOKEN: TEST_TOKEN },
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: () => Promise.reject(new Error('no writes')),
    interrupted: () => interrupted,
    stdoutIsTerminal,
  };
  const code = main(['events', ...argv], io);
  return {
    out: () => stdout,
    async stop() {
      interrupt();
      return { code: await code, stdout, stderr };
    },
  };
}

/** Runs the feed until a checkpoint.created has been printed (beats come all along), then interrupts it. */
async function feedUntilCheckpoint(argv: string[], terminal: boolean) {
  const call = events(argv, terminal);
  await h.advance(3000);
  await h.until(h.runtime.createCheckpoint());
  for (let i = 0; i < 2000 && !call.out().includes('checkpoint.created'); i += 1) {
    await h.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return call.stop();
}

describe('vigil events, piped', () => {
  it('prints every event as one JSON object per line, beats included, as before', async () => {
    const { code, stdout } = await feedUntilCheckpoint([], false);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    const parsed = lines.map((line) => JSON.parse(line) as { type: string; seq: number });
    expect(parsed.map((event) => event.type)).toEqual(expect.arrayContaining(['heartbeat.beat', 'checkpoint.created']));
    // Each line is the event exactly as the journal has it.
    const journal = new Map(h.events.map((event) => [event.seq, event]));
    for (const event of parsed) expect(event).toEqual(JSON.parse(JSON.stringify(journal.get(event.seq))));
  });

  it('with --json on a terminal too', async () => {
    const { stdout } = await feedUntilCheckpoint(['--json', '--types', 'checkpoint.*'], true);
    expect(JSON.parse(stdout.trim().split('\n')[0]!)).toMatchObject({ type: 'checkpoint.created' });
  });
});

describe('vigil events, on a terminal', () => {
  it('prints one short line per event and hides heartbeat.beat', async () => {
    const { code, stdout } = await feedUntilCheckpoint([], true);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.some((line) => line.includes('  checkpoint.created  '))).toBe(true);
    for (const line of lines) {
      expect(line).toMatch(/^\d\d:\d\d:\d\d {2}(#\d+|live) {2}[a-z_]+\.[a-z_.]+/);
      expect(line).not.toContain('heartbeat.beat');
      expect(line.length).toBeLessThanOrEqual(160);
    }
  });

  it('shows beats when asked for: --beats, or --types naming them', async () => {
    for (const argv of [['--beats'], ['--types', 'heartbeat.*,checkpoint.*']]) {
      const { stdout } = await feedUntilCheckpoint(argv, true);
      expect(stdout, argv.join(' ')).toMatch(/ {2}heartbeat\.beat {2}beat \d+ {2}every \d+ ms {2}sense /);
    }
  });
});

describe('vigil events --types', () => {
  it.each([
    ['heartbeat', '"heartbeat.*"'],
    ['agent.rply', '"agent.reply"'],
    ['checkpont.*', '"checkpoint.*"'],
  ])('refuses %s (exit 2) with the nearest names', async (types, near) => {
    const call = events(['--types', `agent.reply,${types}`], false);
    const { code, stdout, stderr } = await call.stop();
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`"${types}" is not an event type (did you mean ${near}`);
    expect(stderr).toMatch(/usage: vigil events/);
  });

  it('takes exact types, live ones, prefixes and *', () => {
    for (const ok of [['heartbeat.beat'], ['agent.*', 'tool.*'], ['*'], ['agent.reply_delta'], ['agent*']])
      expect(unknownTypePattern(ok), ok.join()).toBeUndefined();
    expect(unknownTypePattern(['nothing.*'])).toMatch(/"nothing\.\*" is not an event type/);
  });
});

describe('formatEventLine', () => {
  const at = '2026-12-07T10:00:03.120Z';
  it('says time, seq, type and the payload as key=value', () => {
    const event = { seq: 42, type: 'goal.updated', at, beat: 7, goalId: 'g-1', progress: 0.9, status: 'active' };
    expect(formatEventLine(event as FeedEvent, 'UTC')).toBe(
      '10:00:03  #42  goal.updated  goalId=g-1 progress=0.9 status=active',
    );
  });

  it('quotes text with spaces, strips control characters and cuts long values and lines', () => {
    const text = `hello \u001b[31mthere\n${'x'.repeat(300)}`;
    const line = formatEventLine({ seq: 1, type: 'agent.reply', at, beat: 1, turnId: 't-1', text }, 'UTC');
    expect(line).toMatch(/^10:00:03 {2}#1 {2}agent\.reply {2}turnId=t-1 text="hello {2}\[31mthere x+…"$/);
    expect(line).not.toMatch(/\p{Cc}/u);
    expect(line.length).toBeLessThanOrEqual(160);
  });

  it('marks live events and says a beat in words', () => {
    const delta = { type: 'agent.reply_delta', at, beat: 1, turnId: 't-1', text: 'Hi' } as FeedEvent;
    expect(formatEventLine(delta, 'UTC')).toBe('10:00:03  live  agent.reply_delta  turnId=t-1 text=Hi');
    const beat = {
      seq: 9,
      type: 'heartbeat.beat',
      at,
      beat: 9,
      beatCount: 9,
      intervalMs: 250,
      phaseMs: { sense: 0.021, think: 0, integrate: 0.004 },
    } as FeedEvent;
    expect(formatEventLine(beat, 'UTC')).toBe(
      '10:00:03  #9  heartbeat.beat  beat 9  every 250 ms  sense 0.021 think 0 integrate 0.004 ms',
    );
  });

  it('shows beats only when asked for', () => {
    expect(showsBeats(undefined, false)).toBe(false);
    expect(showsBeats(['agent.*'], false)).toBe(false);
    expect(showsBeats(undefined, true)).toBe(true);
    expect(showsBeats(['heartbeat.beat'], false)).toBe(true);
    expect(showsBeats(['*'], false)).toBe(true);
  });
});

describe('figures rounded where they are made', () => {
  it("heartbeat.beat's phase timings are whole microseconds (0.021, not 0.020869999998467392)", async () => {
    await h.advance(5000);
    const beats = h.events.filter((event) => event.type === 'heartbeat.beat');
    expect(beats.length).toBeGreaterThan(3);
    for (const beat of beats) {
      for (const ms of Object.values(beat.phaseMs)) expect(Math.round(ms * 1000) / 1000, JSON.stringify(beat)).toBe(ms);
    }
  });

  it('goal progress adds up to round figures (0.7 + 0.2 is 0.9, 0.1 three times 0.3)', () => {
    let state = goalsReducer(initialGoalsState(), { type: 'goal.add', at: 1, goal: { id: 'g1', title: 'T' } });
    state = goalsReducer(state, { type: 'goal.progress', at: 2, id: 'g1', delta: 0.7 });
    state = goalsReducer(state, { type: 'goal.progress', at: 3, id: 'g1', delta: 0.2 });
    expect(state.goals[0]!.progress).toBe(0.9);
    let thirds = goalsReducer(initialGoalsState(), { type: 'goal.add', at: 1, goal: { id: 'g2', title: 'U' } });
    for (let i = 0; i < 3; i += 1)
      thirds = goalsReducer(thirds, { type: 'goal.progress', at: 2 + i, id: 'g2', delta: 0.1 });
    expect(thirds.goals[0]!.progress).toBe(0.3);
  });
});
