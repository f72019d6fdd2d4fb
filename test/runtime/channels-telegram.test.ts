import { describe, expect, it } from 'vitest';
import type { ReplyStream } from '../../src/subsystems/thinking/thinker.js';
import type { ThinkInput, ThinkResult } from '../../src/subsystems/thinking/thinker.schema.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';
import { BOT_USERNAME, direct, useTelegramRigs } from './channels-telegram.fixture.js';

const rigFor = useTelegramRigs();

describe('a Telegram channel', () => {
  it('answers an allowed sender once, in a reply to the message, and confirms the update only once durable', async () => {
    const rig = await rigFor();
    const { fake } = rig;
    const sent = direct(fake, 101, 'hello');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply');
    const [received] = rig.h.ofType('channel.received');
    expect(received).toMatchObject({
      channel: 'tg',
      chatId: '101',
      messageId: String(sent.message_id),
      senderId: '101',
    });
    const bot = fake.botMessages(101);
    expect(bot).toHaveLength(1);
    expect(bot[0]!.text).toBe('re: hello');
    expect(bot[0]!.replyTo).toBe(sent.message_id);
    expect(rig.h.ofType('channel.replied')[0]).toMatchObject({
      turnId: received!.turnId,
      messageIds: [String(bot[0]!.messageId)],
    });
    const conversation = await rig.h.runtime.listConversation();
    expect(conversation.find((entry) => entry.role === 'user')).toMatchObject({ from: 'tg:101', text: 'hello' });
    // The next poll asks from past the update: Telegram forgets it.
    await rig.until(() => fake.pendingUpdates().length === 0, 'the offset to move past the update');
    expect(fake.droppedPendingUpdates).toBe(0);
    expect(rig.h.runtime.channels.list()).toEqual([
      expect.objectContaining({ name: 'tg', type: 'telegram', state: 'ok', account: `@${BOT_USERNAME}`, pending: 0 }),
    ]);
  });

  it('pairs a stranger: one code an hour, nothing else, approved by an operator, kept across a restart', async () => {
    const rig = await rigFor();
    const { fake } = rig;
    direct(fake, 202, 'who are you?');
    await rig.until(() => fake.botMessages(202).length === 1, 'the pairing reply');
    const code = /([A-Z2-9]{8})/.exec(fake.botMessages(202)[0]!.text)![1]!;
    direct(fake, 202, 'hello??');
    await rig.until(() => fake.pendingUpdates().length === 0, 'the second message to be taken');
    await rig.h.advance(1000, 100);
    expect(fake.botMessages(202)).toHaveLength(1);
    expect(rig.h.ofType('agent.message')).toHaveLength(0);
    expect(rig.h.ofType('channel.refused')).toEqual([
      expect.objectContaining({ channel: 'tg', senderId: '202', reason: 'pairing' }),
    ]);
    expect(rig.h.runtime.channels.pairings()).toEqual([
      expect.objectContaining({ channel: 'tg', senderId: '202', code, name: '@user202' }),
    ]);
    await expect(rig.h.runtime.channels.approve('tg', 'WRONG234')).rejects.toMatchObject({
      code: 'CHANNEL_CODE_INVALID',
    });
    expect(await rig.h.runtime.channels.approve('tg', code.toLowerCase())).toEqual({ channel: 'tg', senderId: '202' });
    expect(rig.h.ofType('channel.paired')).toEqual([expect.objectContaining({ channel: 'tg', senderId: '202' })]);
    await rig.restart();
    expect(rig.h.runtime.channels.senders('tg')).toEqual(
      expect.arrayContaining([expect.objectContaining({ senderId: '202', via: 'pairing', name: '@user202' })]),
    );
    direct(fake, 202, 'now?');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the paired sender’s reply');
    expect(fake.botMessages(202).at(-1)!.text).toBe('re: now?');
    await rig.h.runtime.channels.revoke('tg', '202');
    await expect(rig.h.runtime.channels.revoke('tg', '101')).rejects.toMatchObject({
      code: 'CHANNEL_SENDER_NOT_FOUND',
    });
  });

  it('gives an allowlist stranger nothing at all, and reports them once an hour', async () => {
    const rig = await rigFor({ channel: { dmPolicy: 'allowlist' } });
    const { fake } = rig;
    direct(fake, 303, 'let me in');
    direct(fake, 303, 'please');
    await rig.until(
      () => fake.pendingUpdates().length === 0 && rig.h.ofType('channel.refused').length > 0,
      'both taken',
    );
    await rig.h.advance(1000, 100);
    expect(fake.botMessages(303)).toEqual([]);
    expect(rig.h.ofType('agent.message')).toEqual([]);
    expect(rig.h.ofType('channel.refused')).toEqual([
      expect.objectContaining({ senderId: '303', reason: 'not_allowed' }),
    ]);
  });

  it('takes a group message only when it mentions or replies to the bot, marked untrusted, and ignores other groups', async () => {
    const rig = await rigFor({ channel: { groups: ['-100500'] } });
    const { fake } = rig;
    const group = { id: -100500, type: 'supergroup' as const, title: 'Friends' };
    const alice = { id: 404, first_name: 'Alice', username: 'alice' };
    fake.userSends({ chat: group, from: alice, text: 'just chatting' });
    fake.userSends({ chat: { id: -100777, type: 'group', title: 'Other' }, from: alice, text: `@${BOT_USERNAME} hi` });
    fake.userSends({ chat: group, from: alice, text: `@${BOT_USERNAME} what time is it?` });
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the mention’s reply');
    const [message] = rig.h.ofType('agent.message');
    expect(rig.h.ofType('agent.message')).toHaveLength(1);
    expect(message!.text).toContain('Untrusted message from @alice (404) in group "Friends" (-100500)');
    const botReply = fake.botMessages(-100500)[0]!;
    fake.userSends({ chat: group, from: alice, text: 'thanks', replyToMessageId: botReply.messageId });
    await rig.until(() => rig.h.ofType('channel.replied').length === 2, 'the reply-to-bot’s reply');
    expect(fake.botMessages(-100777)).toEqual([]);
  });

  it('answers messages sent while it was down after it starts, once each, oldest first', async () => {
    const rig = await rigFor();
    const { fake } = rig;
    await rig.h.runtime.stop();
    direct(fake, 101, 'one');
    direct(fake, 101, 'two');
    direct(fake, 101, 'three');
    await rig.restart();
    await rig.until(() => rig.h.ofType('channel.replied').length === 3, 'three replies');
    expect(rig.h.ofType('agent.message').map((event) => event.text)).toEqual(['one', 'two', 'three']);
    expect(fake.botMessages(101).map((message) => message.text)).toEqual(['re: one', 're: two', 're: three']);
  });

  it('splits a 10,000-character reply with a code block at Telegram’s limit, closing and reopening the block', async () => {
    const long = `Here:\n\n\`\`\`python\n${'print("x" * 10)\n'.repeat(600)}\`\`\`\nDone.`;
    const thinker = new ScriptedThinker((input) =>
      input.pendingMessages.map((message) => ({ type: 'reply' as const, turnId: message.turnId, text: long })),
    );
    const rig = await rigFor({ thinker });
    direct(rig.fake, 101, 'code please');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the long reply', 800);
    const parts = rig.fake.botMessages(101);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) expect(part.text.length).toBeLessThanOrEqual(4096);
    expect(parts.map((part) => part.text).join('')).toContain('Done.');
    expect(rig.h.ofType('channel.replied')[0]!.messageIds).toHaveLength(parts.length);
    // Each part renders as one code block: Telegram accepted it as HTML (no part fell back to the Markdown source).
    for (const part of parts.slice(0, -1)) expect(part.text).not.toContain('```');
  });

  it('honours a 429 retry_after and still delivers the reply', async () => {
    const rig = await rigFor();
    rig.fake.rateLimit({ method: 'sendMessage', chatId: 101, times: 1, retryAfter: 1 });
    direct(rig.fake, 101, 'hi');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply after the 429', 800);
    const sends = rig.fake.requests.filter(
      (request) => request.method === 'sendMessage' && String(request.chatId) === '101',
    );
    expect(sends[0]!.status).toBe(429);
    expect(sends[1]!.at - sends[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(rig.fake.botMessages(101).map((message) => message.text)).toEqual(['re: hi']);
  });

  it('survives a refused token: failing once, retried at most a minute apart, recovered', async () => {
    const rig = await rigFor();
    await rig.until(() => rig.h.ofType('channel.connected').length === 1, 'the connection');
    rig.fake.revokeToken('7000001:AAH-test-token-for-the-fake-bot-api-000');
    await rig.until(() => rig.h.ofType('channel.failing').length === 1, 'channel.failing');
    expect(rig.h.runtime.channels.list()[0]).toMatchObject({ state: 'failing' });
    await rig.h.advance(180_000, 5_000);
    expect(rig.h.ofType('channel.failing')).toHaveLength(1);
    rig.fake.restoreToken('7000001:AAH-test-token-for-the-fake-bot-api-000');
    await rig.until(() => rig.h.ofType('channel.recovered').length === 1, 'channel.recovered', 2000);
    for (const event of rig.h.events) expect(JSON.stringify(event)).not.toContain('AAH-test-token');
    direct(rig.fake, 101, 'back?');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply after recovery');
  });

  it('acts for operators with operate and for everyone else with talk', async () => {
    const rig = await rigFor({ channel: { operators: ['909'] } });
    const seen: Array<{ from?: string; scope?: string }> = [];
    const thinker = rig.thinker as ScriptedThinker;
    thinker.script = (input) =>
      input.pendingMessages.map((message) => {
        seen.push({ from: message.from, scope: message.scope });
        return { type: 'reply' as const, turnId: message.turnId, text: 'ok' };
      });
    direct(rig.fake, 909, 'as operator');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the operator’s reply');
    direct(rig.fake, 101, 'as talker');
    await rig.until(() => rig.h.ofType('channel.replied').length === 2, 'the talker’s reply');
    expect(seen).toEqual([
      { from: 'tg:909', scope: 'operate' },
      { from: 'tg:101', scope: 'talk' },
    ]);
  });
});

/** A thinker that streams each reply in pieces the test releases, as the Anthropic and OpenAI thinkers stream. */
class StreamingThinker extends ScriptedThinker {
  private stream: ReplyStream | undefined;
  readonly gates: Array<() => void> = [];

  useReplyStream(stream: ReplyStream): void {
    this.stream = stream;
  }

  override async think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult> {
    const [message] = input.pendingMessages;
    if (message !== undefined && this.stream?.wanted() === true) {
      for (const piece of ['Once upon ', 'a time ', 'there was a bot.']) {
        await new Promise<void>((resolve) => this.gates.push(resolve));
        this.stream.delta(message.turnId, piece);
      }
    }
    return super.think(input, signal);
  }
}

describe('a Telegram channel streaming a reply', () => {
  it('shows the reply as it is written by edits at most once a second, then the whole text', async () => {
    const thinker = new StreamingThinker((input) =>
      input.pendingMessages.map((message) => ({
        type: 'reply' as const,
        turnId: message.turnId,
        text: 'Once upon a time there was a bot.',
      })),
    );
    const rig = await rigFor({ thinker });
    direct(rig.fake, 101, 'tell me a story');
    await rig.until(() => rig.fake.botMessages(101).length === 1 && thinker.gates.length === 1, 'the placeholder');
    thinker.gates.shift()!();
    await rig.until(() => rig.fake.botMessages(101)[0]!.text === 'Once upon', 'the first piece');
    thinker.gates.shift()!();
    await rig.until(() => thinker.gates.length === 1, 'the third piece to wait');
    thinker.gates.shift()!();
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the whole reply');
    const [message] = rig.fake.botMessages(101);
    expect(message!.text).toBe('Once upon a time there was a bot.');
    expect(message!.edits.length).toBeGreaterThanOrEqual(2);
    const edits = rig.fake.requests.filter((request) => request.method === 'editMessageText');
    for (let i = 1; i < edits.length; i++) expect(edits[i]!.at - edits[i - 1]!.at).toBeGreaterThanOrEqual(1000);
  });
});

describe('a Telegram channel and the budget', () => {
  it('acks at once while asleep over the budget, then answers in a message of its own on waking', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 950_000;
    const rig = await rigFor({ thinker, config: { dailyBudgetUsd: 1, windDownPct: 90, hardStopPct: 110 } });
    direct(rig.fake, 101, 'spend it all');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the first reply');
    await rig.until(() => rig.h.runtime.status().state === 'dormant', 'sleep');
    const waiting = direct(rig.fake, 101, 'are you there?');
    await rig.until(
      () => rig.fake.botMessages(101).length === 2 && rig.fake.botMessages(101)[1]!.text !== '…',
      'the ack',
    );
    expect(rig.fake.botMessages(101)[1]).toMatchObject({ replyTo: waiting.message_id });
    expect(rig.fake.botMessages(101)[1]!.text).toContain("I'm resting");
    thinker.costMicroUsd = 10_000;
    await rig.h.runtime.topUp({ amountUsd: 2 });
    await rig.until(() => rig.h.ofType('channel.replied').length === 2, 'the reply after waking');
    const last = rig.fake.botMessages(101).at(-1)!;
    expect(last).toMatchObject({ text: 're: are you there?', replyTo: waiting.message_id });
  });

  it('reports a send Telegram refuses for good and does not retry it', async () => {
    const rig = await rigFor();
    rig.fake.failNext({ method: 'sendMessage', status: 403, description: 'Forbidden: bot was blocked by the user' });
    direct(rig.fake, 101, 'hi');
    await rig.until(() => rig.h.ofType('channel.send_failed').length === 1, 'channel.send_failed');
    expect(rig.h.ofType('channel.send_failed')[0]).toMatchObject({ channel: 'tg', chatId: '101' });
    expect(rig.h.ofType('channel.send_failed')[0]!.error).toContain('403');
    await rig.h.advance(120_000, 10_000);
    const sends = rig.fake.requests.filter((request) => request.method === 'sendMessage');
    expect(sends).toHaveLength(1);
    expect(rig.h.runtime.channels.list()[0]).toMatchObject({ pending: 0 });
  });
});
