import { describe, expect, it } from 'vitest';
import { cliInvocation, nextStepsLine } from '../../src/gateway/next-steps.js';

describe('nextStepsLine', () => {
  it('names the address, the dashboard and send commands as they run here, and where the token is, never the token', () => {
    expect(
      nextStepsLine({
        url: 'http://127.0.0.1:7420',
        tokenFile: 'data/token',
        dataDirFlag: undefined,
        cli: 'npx vigil',
      }),
    ).toBe(
      'Vigil is listening at http://127.0.0.1:7420/. Dashboard: npx vigil dashboard (prints a one-time sign-in link). ' +
        'Talk to it: npx vigil send "hello". A read-only token: npx vigil tokens create --scope read. ' +
        'The gateway token is in data/token.',
    );
  });

  it('adds --data-dir (quoted for a shell when needed) to every command, and names VIGIL_TOKEN when that is the token', () => {
    const text = nextStepsLine({
      url: 'http://127.0.0.1:41000',
      tokenFile: undefined,
      dataDirFlag: "/tmp/my agent's dir",
      cli: 'vigil',
    });
    expect(text).toContain("The gateway token is VIGIL_TOKEN's value");
    const quoted = `--data-dir '/tmp/my agent'\\''s dir'`;
    expect(text).toContain(`vigil dashboard ${quoted} (`);
    expect(text).toContain(`vigil send "hello" ${quoted}.`);
    expect(text).toContain(`vigil tokens create --scope read ${quoted}.`);
  });
});

describe('cliInvocation', () => {
  it('says vigil when a vigil command is on PATH, npx vigil otherwise (a checkout)', () => {
    const files = new Set(['/usr/local/bin/vigil']);
    expect(cliInvocation('/usr/bin:/usr/local/bin', (file) => files.has(file))).toBe('vigil');
    expect(cliInvocation('/usr/bin:/work/main/node_modules/.bin', (file) => files.has(file))).toBe('npx vigil');
    expect(cliInvocation(undefined, () => true)).toBe('npx vigil');
  });
});
