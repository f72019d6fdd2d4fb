import { describe, expect, it } from 'vitest';
import { startDaemon } from './daemon-process.js';
import { runNode } from './run-process.js';

describe('vigil command line', () => {
  it.each([
    ['VIGIL_PORT', 'seventy', /VIGIL_PORT="seventy" is invalid: expected an integer from 0 to 65535/],
    ['VIGIL_TIMEZONE', 'Mars/Olympus_Mons', /VIGIL_TIMEZONE="Mars\/Olympus_Mons" is invalid/],
    ['VIGIL_CHECKPOINT_INTERVAL_BEATS', '0', /VIGIL_CHECKPOINT_INTERVAL_BEATS="0" is invalid/],
    [
      'VIGIL_CONTEXT_TOKENS',
      '100',
      /VIGIL_CONTEXT_TOKENS="100" is invalid: expected an integer number of tokens from 4096/,
    ],
  ])('exits 2 naming %s when it is invalid', async (variable, value, message) => {
    const daemon = startDaemon(['run', '--data-dir', '/tmp/vigil-never-created'], { [variable]: value });
    expect(await daemon.exited).toBe(2);
    expect(daemon.stderr()).toMatch(message);
  });

  it('exits 2 with the usage for an unknown command or flag', async () => {
    const unknown = startDaemon(['frobnicate']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toMatch(/unknown command "frobnicate"/);
    const badFlag = startDaemon(['run', '--colour', 'blue']);
    expect(await badFlag.exited).toBe(2);
    expect(badFlag.stderr()).toMatch(/usage: vigil run/);
  });

  it('exits 2 naming VIGIL_MODEL when the model has no known price and no override', async () => {
    const daemon = startDaemon(['run', '--thinker', 'anthropic', '--data-dir', '/tmp/vigil-never-created'], {
      ANTHROPIC_API_KEY: 'sk-test',
      VIGIL_MODEL: 'claude-imaginary-9',
    });
    expect(await daemon.exited).toBe(2);
    expect(daemon.stderr()).toMatch(/VIGIL_MODEL="claude-imaginary-9" has no known price/);
  });

  it('exits 2 naming VIGIL_MODEL for the openai thinker with a model that has no price, 0 being a price', async () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', VIGIL_MODEL: 'llama3.2' };
    const daemon = startDaemon(['run', '--thinker', 'openai', '--data-dir', '/tmp/vigil-never-created'], env);
    expect(await daemon.exited).toBe(2);
    expect(daemon.stderr()).toMatch(/VIGIL_MODEL="llama3.2" has no known price/);
  });

  it('exits 2 for the anthropic thinker without ANTHROPIC_API_KEY', async () => {
    const daemon = startDaemon(['run', '--thinker', 'anthropic', '--data-dir', '/tmp/vigil-never-created']);
    expect(await daemon.exited).toBe(2);
    expect(daemon.stderr()).toMatch(/ANTHROPIC_API_KEY/);
  });

  it('answers --help and -h of the binary with that usage, exit 0, before any daemon is looked for', async () => {
    // Before: `vigil send --help` exited 2 with Node's parseArgs text; `vigil --help` was 80 lines.
    const env = { VIGIL_DATA_DIR: '/tmp/vigil-never-created', VIGIL_PORT: '9' };
    const top = await runNode(['bin/vigil.js', '--help'], env);
    expect(top.code).toBe(0);
    expect(top.stdout.trimEnd().split('\n').length).toBeLessThanOrEqual(40);
    for (const argv of [
      ['send', '--help'],
      ['send', '-h'],
      ['webhooks', '--help'],
      ['webhooks', 'list', '-h'],
    ]) {
      const help = await runNode(['bin/vigil.js', ...argv], env);
      expect(help.code, argv.join(' ')).toBe(0);
      expect(help.stderr).toBe('');
      expect(help.stdout).toMatch(new RegExp(`^usage: vigil ${argv[0]!}`));
    }
    const misspelt = await runNode(['bin/vigil.js', 'webhooks', 'lst'], env);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(/unknown webhooks subcommand "lst" \(did you mean "list"/);
  });
});
