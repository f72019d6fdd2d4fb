import { describe, expect, it } from 'vitest';
import { runDetached } from '../../src/shared/run-detached.js';
import { LEVELS, recordingLogger } from '../faults/recording-logger.js';

describe('runDetached', () => {
  it('logs a failure at error with what was being done and the reason, and leaves no unhandled rejection', async () => {
    const { log, records } = recordingLogger();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      runDetached(Promise.reject(new Error('disk full')), log, 'writing the note');
      // Two turns of the event loop: long enough for Node to report an unhandled rejection.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(records).toMatchObject([{ level: LEVELS.error, err: 'disk full', msg: 'writing the note failed' }]);
    expect(unhandled).toEqual([]);
  });

  it('logs nothing when the work succeeds', async () => {
    const { log, records } = recordingLogger();
    runDetached(Promise.resolve(42), log, 'counting');
    await new Promise((resolve) => setImmediate(resolve));
    expect(records).toEqual([]);
  });
});
