import { describe, expect, it } from 'vitest';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { downReason, errorClass, launcherStatus } from '../../../src/subsystems/tools/down-reason.js';
import { LAUNCHER_TAG } from '../../../src/subsystems/tools/launcher-script.js';

describe('down-reason', () => {
  it("keeps an error's class and code, never its message", () => {
    const answered = new McpError(ErrorCode.InternalError, 'the key is sk-live-123');
    expect(errorClass(answered)).toBe(`McpError ${ErrorCode.InternalError}`);
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(errorClass(refused)).toBe('TypeError ECONNREFUSED');
    expect(errorClass(new Error('password=hunter2'))).toBe('Error');
    expect(errorClass('a string')).toBe('string');
  });

  it("reads only the launcher's own lines, matched exactly, so a server cannot put words in the reason", () => {
    const tag = `${LAUNCHER_TAG}: `;
    expect(launcherStatus(['token=abc', `${tag}the server exited with code 7`])).toBe('the server exited with code 7');
    expect(launcherStatus([`${tag}the server was killed by SIGKILL`, 'bye'])).toBe('the server was killed by SIGKILL');
    expect(launcherStatus([`${tag}cannot start "/opt/x": spawn /opt/x ENOENT`])).toBe(
      "the server's command cannot start (ENOENT)",
    );
    // A server printing a look-alike of the launcher's line with a secret in it gets nothing through.
    expect(launcherStatus([`${tag}the server exited with code 1 and the key is sk-live-123`])).toBeUndefined();
    expect(launcherStatus(['fixture: ready'])).toBeUndefined();
    expect(downReason('the connection closed', ['secret', `${tag}the server exited with code 1`])).toBe(
      'the connection closed; the server exited with code 1',
    );
    expect(downReason('the connection closed', ['secret'])).toBe('the connection closed');
  });
});
