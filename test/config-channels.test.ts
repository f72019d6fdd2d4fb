import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { VigilError } from '../src/errors.js';

const tmp = mkdtempSync(join(tmpdir(), 'vigil-config-channels-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const file = (name: string, value: unknown): string => {
  const path = join(tmp, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
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

describe('loadConfig: VIGIL_CHANNELS_CONFIG', () => {
  it('reads a Telegram entry with its defaults: pairing, the public Bot API, no one allowed yet', () => {
    const path = file('tg.json', {
      channels: { tg: { type: 'telegram', tokenEnv: 'TG_TOKEN', allowFrom: [101, '202'] } },
    });
    const config = loadConfig({ VIGIL_CHANNELS_CONFIG: path, TG_TOKEN: '1:abc' });
    expect(config.channels.channels).toEqual({
      tg: {
        type: 'telegram',
        tokenEnv: 'TG_TOKEN',
        apiRoot: 'https://api.telegram.org',
        dmPolicy: 'pairing',
        allowFrom: ['101', '202'],
        groups: [],
        operators: [],
      },
    });
  });

  it('exits on an unset token variable, naming it and the channel (never a value)', () => {
    const path = file('tg-unset.json', { channels: { tg: { type: 'telegram', tokenEnv: 'TG_TOKEN' } } });
    const err = caught(() => loadConfig({ VIGIL_CHANNELS_CONFIG: path }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('TG_TOKEN');
    expect(err.message).toContain('"tg"');
  });

  it.each([
    ['an unknown type', { channels: { tg: { type: 'carrier-pigeon', tokenEnv: 'X' } } }, /type|carrier-pigeon/],
    ['an unknown field', { channels: { tg: { type: 'telegram', tokenEnv: 'X', token: 'inline' } } }, /token/],
    ['a bad dmPolicy', { channels: { tg: { type: 'telegram', tokenEnv: 'X', dmPolicy: 'everyone' } } }, /dmPolicy/],
    ['a bad name', { channels: { 'a b': { type: 'telegram', tokenEnv: 'X' } } }, /name/],
    ['not JSON', '{"channels":', /JSON|parse/i],
  ])('refuses %s with CONFIG_INVALID naming VIGIL_CHANNELS_CONFIG', (_what, content, message) => {
    const path = file(`bad-${_what.replace(/\W/g, '-')}.json`, content);
    const err = caught(() => loadConfig({ VIGIL_CHANNELS_CONFIG: path, X: 'x' }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('VIGIL_CHANNELS_CONFIG');
    expect(err.message).toMatch(message);
  });
});
