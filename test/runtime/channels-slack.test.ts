/**
 * A Slack channel in a real runtime (CONTRACT §18), over Socket Mode against the fake Slack: one turn and one
 * threaded reply per message however often Slack delivers it, envelopes acknowledged only once durable, replies split
 * where Slack would refuse them, 429s waited out, strangers paired, channels only when the bot is addressed.
 */
import { describe, expect, it } from 'vitest';
import type { ReplyStream } from '../../src/subsystems/thinking/thinker.js';
import type { ThinkInput, ThinkResult } from '../../src/subsystems/thinking/thinker.schema.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';
import type { FakeSlack } from '../fixtures/fake-slack.js';
import { dm, useSlackRigs } from './channels-slack.fixture.js';

const rigFor = useSlackRigs();

describe('a Slack channel', () => {
  it('answers a direct message once, in its thread, and acknowledges the envelope once it is durable', async () => {
    const rig = await rigFor();
    const { fake } = rig;
    const sent = dm(fake, 'U0101', 'hello');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply');
    expect(rig.h.ofType('channel.received')).toEqual([
      expect.objectContaining({ channel: 'sl', chatId: 'D0101', messageId: sent.ts, senderId: 'U0101' }),
    ]);
    expect(fake.botMessages('D0101')).toEqual([
      expect.objectContaining({ text: 're: hello', threadTs: sent.ts, history: ['…', 're: hello'] }),
    ]);
    const conversation = await rig.h.runtime.listConversation();
    expect(conversation.find((entry) => entry.role === 'user')).toMatchObject({ from: 'sl:U0101', text: 'hello' });
    await rig.until(() => fake.socket.events.every((event) => event.acked), 'the acknowledgement');
    expect(fake.abandoned()).toEqual([]);
    expect(rig.h.runtime.channels.list()).toEqual([
      expect.objectContaining({ name: 'sl', type: 'slack', state: 'ok', account: '@vigil', pending: 0 }),
    ]);
  });

  it('never makes a second turn of a redelivery, however it comes', async () => {
    const rig = await rigFor({ channel: { groups: ['C0500'] } });
    const { fake } = rig;
    const sent = dm(fake, 'U0101', 'once');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply');
    await rig.until(() => fake.socket.events.every((event) => event.acked), 'the acknowledgement');
    // Slack delivers it again (an acknowledgement lost with a crash): retry_attempt 1, the same event.
    fake.socket.replay(fake.socket.events[0]!.eventId);
    // A mention in a channel comes as both `message` and `app_mention`.
    const mention = fake.userSends({ channel: 'C0500', user: 'U0101', text: `<@${fake.botUserId}> twice?` });
    await rig.until(() => rig.h.ofType('channel.replied').length === 2, 'the mention’s reply');
    await rig.until(() => fake.socket.events.every((event) => event.acked), 'every acknowledgement');
    await rig.h.advance(2_000, 100);
    expect(fake.socket.deliveries.filter((each) => each.retryAttempt > 0)).not.toHaveLength(0);
    expect(rig.h.ofType('channel.received').map((event) => event.messageId)).toEqual([sent.ts, mention.ts]);
    expect(fake.botMessages('D0101')).toHaveLength(1);
    const [answer] = fake.botMessages('C0500');
    expect(fake.botMessages('C0500')).toHaveLength(1);
    expect(answer).toMatchObject({ threadTs: mention.ts });
    expect(answer!.text).toContain('@vigil twice?');
  });

  it('takes a channel message only when it mentions the bot or is in its thread, marked untrusted', async () => {
    const rig = await rigFor({ channel: { groups: ['C0600'] } });
    const { fake } = rig;
    fake.userSends({ channel: 'C0600', user: 'U0202', text: 'just chatting' });
    fake.userSends({ channel: 'C0700', user: 'U0202', text: `<@${fake.botUserId}> not listed` });
    const asked = fake.userSends({ channel: 'C0600', user: 'U0202', text: `<@${fake.botUserId}> what time is it?` });
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the mention’s reply');
    expect(rig.h.ofType('agent.message')).toHaveLength(1);
    expect(rig.h.ofType('agent.message')[0]!.text).toContain('Untrusted message from U0202 in group C0600');
    const followUp = fake.userSends({ channel: 'C0600', user: 'U0202', text: 'and tomorrow?', threadTs: asked.ts });
    await rig.until(() => rig.h.ofType('channel.replied').length === 2, 'the thread reply');
    expect(fake.botMessages('C0600').map((message) => message.threadTs)).toEqual([asked.ts, asked.ts]);
    expect(rig.h.ofType('channel.received').map((event) => event.messageId)).toEqual([asked.ts, followUp.ts]);
    expect(fake.botMessages('C0700')).toEqual([]);
  });

  it('pairs a stranger: a code in one reply, no turn, approved by an operator', async () => {
    const rig = await rigFor();
    const { fake } = rig;
    dm(fake, 'U0303', 'who are you?');
    await rig.until(() => fake.botMessages('D0303').length === 1, 'the pairing reply');
    expect(fake.botMessages('D0303')[0]!.text).toContain('CODE2345');
    expect(rig.h.ofType('agent.message')).toEqual([]);
    expect(await rig.h.runtime.channels.approve('sl', 'CODE2345')).toEqual({ channel: 'sl', senderId: 'U0303' });
    dm(fake, 'U0303', 'now?');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the paired sender’s reply');
    expect(fake.botMessages('D0303').at(-1)!.text).toBe('re: now?');
  });

  it('splits a reply Slack would refuse as too long, every part in the thread, none over its limit', async () => {
    const long = `${'Ünïcödé text, '.repeat(400)}\n\n\`\`\`\n${'x < y && y > z\n'.repeat(300)}\`\`\`\nDone.`;
    const thinker = new ScriptedThinker((input) =>
      input.pendingMessages.map((message) => ({ type: 'reply' as const, turnId: message.turnId, text: long })),
    );
    const rig = await rigFor({ thinker });
    const sent = dm(rig.fake, 'U0101', 'long please');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the long reply', 800);
    const parts = rig.fake.botMessages('D0101');
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(part.threadTs).toBe(sent.ts);
      expect(Buffer.byteLength(part.text)).toBeLessThanOrEqual(4000);
    }
    expect(parts.at(-1)!.text).toContain('Done.');
    expect(rig.fake.calls.filter((call) => call.method === 'chat.update').every((call) => call.status === 200)).toBe(
      true,
    );
  });

  it('honours a 429 Retry-After and still delivers the reply', async () => {
    const rig = await rigFor();
    rig.fake.rateLimit('chat.update', 3);
    dm(rig.fake, 'U0101', 'hi');
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply after the 429', 800);
    const updates = rig.fake.calls.filter((call) => call.method === 'chat.update');
    expect(updates.map((call) => call.status)).toEqual([429, 200]);
    expect(updates[1]!.at - updates[0]!.at).toBeGreaterThanOrEqual(3_000);
    expect(rig.fake.botMessages('D0101').map((message) => message.text)).toEqual(['re: hi']);
  });

  it('survives a lost connection and a refused app token: failing once, no token shown, recovered', async () => {
    const rig = await rigFor();
    const { fake } = rig;
    await rig.until(() => fake.socket.connections === 1 && rig.h.ofType('channel.connected').length === 1, 'connected');
    fake.revokeAppToken(true);
    fake.socket.dropConnections();
    await rig.until(() => rig.h.ofType('channel.failing').length === 1, 'channel.failing');
    expect(rig.h.ofType('channel.failing')[0]).toMatchObject({ error: 'apps.connections.open: invalid_auth' });
    expect(rig.h.runtime.channels.list()[0]).toMatchObject({ state: 'failing' });
    dm(fake, 'U0101', 'while failing');
    await rig.h.advance(120_000, 5_000);
    expect(rig.h.ofType('channel.failing')).toHaveLength(1);
    fake.revokeAppToken(false);
    await rig.until(() => rig.h.ofType('channel.recovered').length === 1, 'channel.recovered', 800);
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply after recovering', 800);
    expect(fake.botMessages('D0101').map((message) => message.text)).toEqual(['re: while failing']);
    expect(JSON.stringify(rig.h.ofType('channel.failing'))).not.toContain('xapp-');
  });

  it('answers a message sent while it was down once, after the restart, acknowledging it then', async () => {
    const rig = await rigFor();
    const { fake } = rig;
    await rig.until(() => fake.socket.connections === 1, 'the connection');
    let sent: ReturnType<typeof dm> | undefined;
    await rig.restart({ crash: true, meanwhile: () => (sent = dm(fake, 'U0101', 'while down')) });
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply after the restart', 800);
    await rig.until(() => fake.socket.events.every((event) => event.acked), 'the acknowledgement');
    expect(fake.botMessages('D0101')).toEqual([
      expect.objectContaining({ text: 're: while down', threadTs: sent!.ts }),
    ]);
    // Delivered live and read from history too (the catch-up after the restart): one turn.
    await rig.h.advance(2_000, 100);
    expect(rig.h.ofType('channel.received').map((event) => event.messageId)).toEqual([sent!.ts]);
  });

  it('answers what Slack gave up redelivering while it was down, from history, once each, oldest first', async () => {
    const rig = await rigFor({ channel: { groups: ['C0800'] } });
    const { fake } = rig;
    const asked = fake.userSends({ channel: 'C0800', user: 'U0101', text: `<@${fake.botUserId}> start a thread` });
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the first reply');
    await rig.until(() => fake.socket.events.every((event) => event.acked), 'the acknowledgements');
    const missed: string[] = [];
    await rig.restart({
      crash: true,
      meanwhile: () => {
        // Down for longer than Slack retries: no envelope is ever delivered for these; only history holds them.
        const away = (message: Parameters<FakeSlack['userSends']>[0]) =>
          fake.userSends({ ...message, undelivered: true });
        missed.push(away({ channel: 'D0101', channelType: 'im', user: 'U0101', text: 'while away' }).ts);
        away({ channel: 'C0800', user: 'U0202', text: 'chatter, not for the bot' });
        missed.push(away({ channel: 'C0800', user: 'U0101', text: 'and in the thread', threadTs: asked.ts }).ts);
        missed.push(away({ channel: 'C0800', user: 'U0101', text: `<@${fake.botUserId}> a new question` }).ts);
        missed.push(away({ channel: 'D0101', channelType: 'im', user: 'U0101', text: 'still there?' }).ts);
        // Within Slack's retries: delivered live when the socket opens, and in history too.
        missed.push(dm(fake, 'U0101', 'both ways').ts);
      },
    });
    // The restarted runtime's events: one turn per missed message (the chatter is none), in the order written.
    await rig.until(() => rig.h.ofType('channel.replied').length === 5, 'the replies after the restart', 800);
    await rig.until(() => fake.socket.events.every((event) => event.acked), 'the live envelope’s acknowledgement');
    await rig.h.advance(2_000, 100);
    const live = fake.socket.events.find((event) => (event.payload.event as { ts?: string }).ts === missed[4]);
    expect(fake.socket.deliveries.some((each) => each.eventId === live!.eventId)).toBe(true);
    expect(rig.h.ofType('channel.received').map((event) => event.messageId)).toEqual(missed);
    expect(fake.botMessages('D0101').map((message) => [message.threadTs, message.text])).toEqual([
      [missed[0], 're: while away'],
      [missed[3], 're: still there?'],
      [missed[4], 're: both ways'],
    ]);
    expect(fake.botMessages('C0800').map((message) => message.threadTs)).toEqual([asked.ts, asked.ts, missed[2]]);
    expect(fake.calls.filter((call) => call.method === 'conversations.history').length).toBeGreaterThan(0);
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
      for (const piece of ['Once upon ', 'a **time** ', 'there was a bot.']) {
        await new Promise<void>((resolve) => this.gates.push(resolve));
        this.stream.delta(message.turnId, piece);
      }
    }
    return super.think(input, signal);
  }
}

describe('a Slack channel streaming a reply', () => {
  it('shows the reply in its thread as it is written, by chat.update at most once a second, then the whole text', async () => {
    const thinker = new StreamingThinker((input) =>
      input.pendingMessages.map((message) => ({
        type: 'reply' as const,
        turnId: message.turnId,
        text: 'Once upon a **time** there was a bot.',
      })),
    );
    const rig = await rigFor({ thinker });
    const sent = dm(rig.fake, 'U0101', 'tell me a story');
    await rig.until(() => rig.fake.botMessages('D0101').length === 1 && thinker.gates.length === 1, 'the placeholder');
    thinker.gates.shift()!();
    await rig.until(() => rig.fake.botMessages('D0101')[0]!.text === 'Once upon', 'the first piece');
    thinker.gates.shift()!();
    await rig.until(() => thinker.gates.length === 1, 'the third piece to wait');
    thinker.gates.shift()!();
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the whole reply');
    const [message] = rig.fake.botMessages('D0101');
    expect(message).toMatchObject({ threadTs: sent.ts, text: 'Once upon a *time* there was a bot.' });
    expect(message!.history.length).toBeGreaterThanOrEqual(3);
    const updates = rig.fake.calls.filter((call) => call.method === 'chat.update');
    for (let i = 1; i < updates.length; i++) expect(updates[i]!.at - updates[i - 1]!.at).toBeGreaterThanOrEqual(1000);
  });
});
