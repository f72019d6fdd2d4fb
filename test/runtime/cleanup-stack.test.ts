import { describe, expect, it } from 'vitest';
import { CleanupStack } from '../../src/runtime/cleanup-stack.js';
import { LEVELS, recordingLogger } from '../faults/recording-logger.js';

describe('CleanupStack', () => {
  it('runs disposers newest first, each awaited before the next starts', async () => {
    const stack = new CleanupStack(recordingLogger().log);
    const order: string[] = [];
    stack.defer('database', () => order.push('database'));
    stack.defer('bus', async () => {
      await Promise.resolve();
      order.push('bus');
    });
    stack.defer('journal', () => order.push('journal'));
    expect(await stack.runAll()).toEqual([]);
    expect(order).toEqual(['journal', 'bus', 'database']);
  });

  it('runs every disposer when some throw or reject, and collects and logs each failure', async () => {
    const { log, records } = recordingLogger();
    const stack = new CleanupStack(log);
    const ran: string[] = [];
    stack.defer('database', () => ran.push('database'));
    stack.defer('journal', () => Promise.reject(new Error('disk full')));
    stack.defer('servers', () => {
      throw new Error('kill failed');
    });
    stack.defer('memory', () => ran.push('memory'));
    const failures = await stack.runAll();
    expect(ran).toEqual(['memory', 'database']);
    expect(failures.map(({ name, error }) => [name, (error as Error).message])).toEqual([
      ['servers', 'kill failed'],
      ['journal', 'disk full'],
    ]);
    const logged = records.filter((record) => record.level === LEVELS.error).map((record) => record['step']);
    expect(logged).toEqual(['servers', 'journal']);
  });

  it('runs each disposer once however often it is asked, the second call getting the first one’s result', async () => {
    const stack = new CleanupStack(recordingLogger().log);
    let closes = 0;
    stack.defer('database', () => {
      closes += 1;
      throw new Error('already gone');
    });
    const [first, second] = await Promise.all([stack.runAll(), stack.runAll()]);
    expect(await stack.runAll()).toBe(first);
    expect(second).toBe(first);
    expect(closes).toBe(1);
    expect(stack.ran).toBe(true);
  });

  it('runs a disposer deferred after the stack ran at once, so nothing acquired late is left behind', async () => {
    const stack = new CleanupStack(recordingLogger().log);
    await stack.runAll();
    let closed = false;
    stack.defer('late', () => {
      closed = true;
    });
    expect(closed).toBe(true);
  });
});
