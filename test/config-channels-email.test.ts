import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { VigilError } from '../src/errors.js';

const tmp = mkdtempSync(join(tmpdir(), 'vigil-config-email-'));
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

const ENTRY = {
  type: 'email',
  imapUrl: 'imaps://mail.example.org',
  smtpUrl: 'smtps://mail.example.org',
  userEnv: 'MAIL_USER',
  passwordEnv: 'MAIL_PASSWORD',
  address: 'Agent@Example.org',
};

describe('loadConfig: an email channel', () => {
  it('reads an entry with its defaults: allowlist, INBOX, Sent, addresses in lower case', () => {
    const path = file('ok.json', { channels: { mail: { ...ENTRY, allowFrom: ['Ann@Example.org'] } } });
    const config = loadConfig({ VIGIL_CHANNELS_CONFIG: path, MAIL_USER: 'agent', MAIL_PASSWORD: 'pw' });
    expect(config.channels.channels).toEqual({
      mail: {
        ...ENTRY,
        address: 'agent@example.org',
        mailbox: 'INBOX',
        sentMailbox: 'Sent',
        dmPolicy: 'allowlist',
        allowFrom: ['ann@example.org'],
        operators: [],
        groups: [],
      },
    });
  });

  it.each(['MAIL_USER', 'MAIL_PASSWORD'])(
    'exits on an unset %s, naming it and the channel (never a value)',
    (unset) => {
      const path = file(`unset-${unset}.json`, { channels: { mail: ENTRY } });
      const env: Record<string, string> = {
        VIGIL_CHANNELS_CONFIG: path,
        MAIL_USER: 'agent',
        MAIL_PASSWORD: 'secret-pw',
      };
      delete env[unset];
      const err = caught(() => loadConfig(env));
      expect(err.code).toBe('CONFIG_INVALID');
      expect(err.message).toContain(unset);
      expect(err.message).toContain('"mail"');
      expect(err.message).not.toContain('secret-pw');
    },
  );

  it.each([
    ['an http URL for IMAP', { imapUrl: 'https://mail.example.org' }, /imapUrl/],
    ['an IMAP URL for SMTP', { smtpUrl: 'imap://mail.example.org' }, /smtpUrl/],
    ['a bad address', { address: 'not an address' }, /address/],
    ['pairing (email has none)', { dmPolicy: 'pairing' }, /dmPolicy/],
    ['groups', { groups: ['x'] }, /groups/],
    ['an inline password', { password: 'inline' }, /password/],
  ])('refuses %s with CONFIG_INVALID naming VIGIL_CHANNELS_CONFIG', (what, change, message) => {
    const path = file(`bad-${what.replace(/\W/g, '-')}.json`, { channels: { mail: { ...ENTRY, ...change } } });
    const err = caught(() => loadConfig({ VIGIL_CHANNELS_CONFIG: path, MAIL_USER: 'a', MAIL_PASSWORD: 'b' }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('VIGIL_CHANNELS_CONFIG');
    expect(err.message).toMatch(message);
  });
});
