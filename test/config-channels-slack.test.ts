import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { VigilError } from '../src/errors.js';

const tmp = mkdtempSync(join(tmpdir(), 'vigil-config-slack-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const file = (name: string, value: unknown): string => {
  const path = join(tmp, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
};

function caught(fn: () => unknown): VigilError {
  try {
    fn();
  } catch (err) {
    if (err instanceof VigilError) return err;
    throw err;
  }
  throw new Error('expected a VigilError');
}

describe('loadConfig: a Slack entry in VIGIL_CHANNELS_CONFIG', () => {
  it('reads Socket Mode with its defaults: pairing, the public Web API', () => {
    const path = file('slack.json', {
      channels: { sl: { type: 'slack', botTokenEnv: 'SLACK_BOT', appTokenEnv: 'SLACK_APP', groups: ['C01'] } },
    });
    const config = loadConfig({ VIGIL_CHANNELS_CONFIG: path, SLACK_BOT: 'xoxb-1', SLACK_APP: 'xapp-1' });
    expect(config.channels.channels).toEqual({
      sl: {
        type: 'slack',
        botTokenEnv: 'SLACK_BOT',
        appTokenEnv: 'SLACK_APP',
        apiUrl: 'https://slack.com/api/',
        dmPolicy: 'pairing',
        allowFrom: [],
        groups: ['C01'],
        operators: [],
      },
    });
  });

  it.each([
    ['the bot token', { botTokenEnv: 'SLACK_BOT', appTokenEnv: 'SLACK_APP' }, { SLACK_APP: 'xapp-1' }, 'SLACK_BOT'],
    ['the app token', { botTokenEnv: 'SLACK_BOT', appTokenEnv: 'SLACK_APP' }, { SLACK_BOT: 'xoxb-1' }, 'SLACK_APP'],
    [
      'the signing secret',
      { botTokenEnv: 'SLACK_BOT', signingSecretEnv: 'SLACK_SIGN' },
      { SLACK_BOT: 'x' },
      'SLACK_SIGN',
    ],
  ])('exits on an unset variable for %s, naming it and the channel', (_what, fields, env, variable) => {
    const path = file(`unset-${variable}.json`, { channels: { sl: { type: 'slack', ...fields } } });
    const err = caught(() => loadConfig({ VIGIL_CHANNELS_CONFIG: path, ...env }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain(variable);
    expect(err.message).toContain('"sl"');
  });

  it('refuses an entry with neither Socket Mode nor the Events API', () => {
    const path = file('neither.json', { channels: { sl: { type: 'slack', botTokenEnv: 'SLACK_BOT' } } });
    const err = caught(() => loadConfig({ VIGIL_CHANNELS_CONFIG: path, SLACK_BOT: 'xoxb-1' }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('appTokenEnv');
  });
});
