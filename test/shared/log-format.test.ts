import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/shared/log-format.js';

const line = (record: Record<string, unknown>) =>
  JSON.stringify({ level: 30, time: '2026-03-01T10:00:03.120Z', name: 'vigil', ...record });

describe('formatLogLine', () => {
  it('writes time, level and message, then the other fields as key=value', () => {
    expect(formatLogLine(line({ msg: 'gateway listening', url: 'http://127.0.0.1:7420' }), { colour: false })).toBe(
      '10:00:03.120 INFO  gateway listening url=http://127.0.0.1:7420\n',
    );
    expect(
      formatLogLine(line({ level: 40, msg: 'checkpoint.corrupt', reason: 'bad gzip header', beat: 3, ok: false }), {
        colour: false,
      }),
    ).toBe('10:00:03.120 WARN  checkpoint.corrupt reason="bad gzip header" beat=3 ok=false\n');
  });

  it('writes nested values as JSON and an error with its stack below the line', () => {
    const text = formatLogLine(
      line({
        level: 50,
        msg: 'failed',
        affect: { valence: 0.1 },
        err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x' },
      }),
      {
        colour: false,
      },
    );
    expect(text).toBe('10:00:03.120 ERROR failed affect={"valence":0.1} err=boom\n    Error: boom\n        at x\n');
  });

  it('colours the level only when asked', () => {
    expect(formatLogLine(line({ level: 50, msg: 'x' }), { colour: true })).toContain('\u001b[31mERROR\u001b[0m');
    expect(formatLogLine(line({ level: 50, msg: 'x' }), { colour: false })).not.toContain('\u001b');
  });

  it('passes a line that is not a JSON object through unchanged', () => {
    expect(formatLogLine('not json', { colour: false })).toBe('not json\n');
    expect(formatLogLine('[1,2]\n', { colour: false })).toBe('[1,2]\n');
  });
});
