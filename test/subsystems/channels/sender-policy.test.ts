import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../../src/subsystems/channels/channel-adapter.js';
import {
  decideAccess,
  untrustedGroupText,
  type AccessSettings,
} from '../../../src/subsystems/channels/sender-policy.js';

const direct = (senderId: string): InboundMessage => ({
  chatId: senderId,
  chatType: 'direct',
  messageId: '1',
  senderId,
  text: 'hi',
  mentionsBot: false,
  repliesToBot: false,
  at: 0,
});

const group = (chatId: string, mentionsBot: boolean, repliesToBot = false): InboundMessage => ({
  ...direct('42'),
  chatId,
  chatType: 'group',
  chatTitle: 'Friends',
  senderName: '@alice',
  mentionsBot,
  repliesToBot,
});

const access = (overrides: Partial<AccessSettings> = {}): AccessSettings => ({
  dmPolicy: 'pairing',
  allowFrom: ['1'],
  groups: ['-100'],
  operators: ['9'],
  ...overrides,
});

describe('sender policy', () => {
  it('refuses a sender the platform could not vouch for, whoever it names and whatever the policy', () => {
    const forged = { ...direct('9'), unauthenticated: true };
    for (const dmPolicy of ['pairing', 'allowlist', 'open'] as const) {
      expect(decideAccess(forged, access({ dmPolicy }), true)).toEqual({ kind: 'refuse', reason: 'unauthenticated' });
    }
  });

  it('admits allowed senders as talk and operators as operate', () => {
    expect(decideAccess(direct('1'), access(), false)).toEqual({ kind: 'admit', scope: 'talk', untrusted: false });
    expect(decideAccess(direct('9'), access(), false)).toEqual({ kind: 'admit', scope: 'operate', untrusted: false });
  });

  it('pairs a stranger under pairing and admits them once approved', () => {
    expect(decideAccess(direct('5'), access(), false)).toEqual({ kind: 'pair' });
    expect(decideAccess(direct('5'), access(), true)).toEqual({ kind: 'admit', scope: 'talk', untrusted: false });
  });

  it('refuses a stranger under allowlist without pairing, and everyone when direct messages are disabled', () => {
    expect(decideAccess(direct('5'), access({ dmPolicy: 'allowlist' }), false)).toEqual({
      kind: 'refuse',
      reason: 'not_allowed',
    });
    expect(decideAccess(direct('1'), access({ dmPolicy: 'disabled' }), false)).toEqual({
      kind: 'refuse',
      reason: 'direct_messages_disabled',
    });
  });

  it('admits anyone under open, still as talk', () => {
    expect(decideAccess(direct('5'), access({ dmPolicy: 'open' }), false)).toEqual({
      kind: 'admit',
      scope: 'talk',
      untrusted: false,
    });
  });

  it('takes a listed group message only when it mentions or replies to the bot, as untrusted', () => {
    expect(decideAccess(group('-100', false), access(), false)).toEqual({ kind: 'ignore' });
    expect(decideAccess(group('-100', true), access(), false)).toEqual({
      kind: 'admit',
      scope: 'talk',
      untrusted: true,
    });
    expect(decideAccess(group('-100', false, true), access(), false).kind).toBe('admit');
    expect(decideAccess(group('-200', true), access(), false)).toEqual({ kind: 'ignore' });
  });

  it('marks group text as content from that sender in that group', () => {
    const text = untrustedGroupText(group('-100', true));
    expect(text).toContain('@alice (42)');
    expect(text).toContain('"Friends" (-100)');
    expect(text.endsWith('\nhi')).toBe(true);
  });
});
