/** `channels.*` over a real gateway and the `vigil channels` commands, with a Telegram channel on the fake Bot API. */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { parseChannelsArgs } from '../../src/client/commands/channels.command.js';
import { createFakeTelegram, type FakeTelegram } from '../fixtures/fake-telegram.js';
import { cliIo, startGatewayHarness, type GatewayHarness } from './gateway.fixture.js';

const BOT_TOKEN = '7000003:AAH-gateway-test-bot-token-0000000000';
let h: GatewayHarness | undefined;
let fake: FakeTelegram | undefined;
afterEach(async () => {
  await h?.runtime.stop();
  await fake?.close();
  h = undefined;
  fake = undefined;
});

async function start(): Promise<{ h: GatewayHarness; fake: FakeTelegram }> {
  fake = await createFakeTelegram({ tokens: [BOT_TOKEN], botUsername: 'vigil_gw_bot' });
  h = await startGatewayHarness({
    runtime: {
      config: {
        channels: {
          channels: {
            tg: {
              type: 'telegram',
              tokenEnv: 'TG',
              apiRoot: fake.url,
              dmPolicy: 'pairing',
              allowFrom: ['1'],
              groups: [],
              operators: ['9'],
            },
          },
        },
      },
      channels: { env: { TG: BOT_TOKEN }, pollTimeoutS: 1 },
    },
  });
  return { h, fake };
}

async function until(harness: GatewayHarness, done: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) {
    await harness.advance(50, 50);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(done()).toBe(true);
}

describe('channels over the gateway', () => {
  it('lists channels, pairings and senders, approves and revokes, with the contract’s errors and scopes', async () => {
    const { h, fake } = await start();
    fake.userSends({
      chat: { id: 55, type: 'private' },
      from: { id: 55, first_name: 'Sam', username: 'sam' },
      text: 'hi',
    });
    await until(h, () => h.runtime.channels.pairings().length === 1);
    const raw = await h.connect();
    const listed = await raw.request('channels.list');
    expect(listed.result).toEqual([
      expect.objectContaining({ name: 'tg', type: 'telegram', state: 'ok', account: '@vigil_gw_bot' }),
    ]);
    const pairings = (await raw.request('channels.pairings', { channel: 'tg' })).result as Array<{ code: string }>;
    expect(pairings).toEqual([expect.objectContaining({ channel: 'tg', senderId: '55', name: '@sam' })]);
    expect((await raw.request('channels.senders', { channel: 'nope' })).error).toMatchObject({ code: -32004 });
    const wrong = await raw.request('channels.approve', { channel: 'tg', code: 'ZZZZZZZZ' });
    expect(wrong.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(wrong.error)).toContain('code');
    // A read token sees the channels and who may talk, never a code, and cannot approve.
    const reader = (await h.runtime.tokens.create({ scope: 'read', name: 'reader' })).token;
    const readOnly = await h.connect({ token: reader });
    expect((await readOnly.request('channels.list')).result).toHaveLength(1);
    expect((await readOnly.request('channels.pairings')).error).toMatchObject({
      code: -32003,
      data: { scope: 'operate' },
    });
    const refused = await readOnly.request('channels.approve', { channel: 'tg', code: pairings[0]!.code });
    expect(refused.error).toMatchObject({ code: -32003 });

    const io = cliIo(h);
    expect(await main(['channels', 'pairings'], io)).toBe(0);
    expect(io.out()).toContain(`tg\t55\t@sam\t${pairings[0]!.code}`);
    expect(await main(['channels', 'approve', 'tg', pairings[0]!.code], io)).toBe(0);
    expect(io.out()).toContain('approved 55 on tg');
    expect(await main(['channels', 'senders', 'tg'], io)).toBe(0);
    expect(io.out()).toMatch(/1\t-\tvia config\ttalk/);
    expect(io.out()).toMatch(/9\t-\tvia config\toperator/);
    expect(io.out()).toMatch(/55\t@sam\tvia pairing\ttalk\tsince /);
    expect(await main(['channels', 'list'], io)).toBe(0);
    expect(io.out()).toMatch(/tg\ttelegram\tok\t@vigil_gw_bot\tpending 0/);
    expect(await main(['channels', 'revoke', 'tg', '55'], io)).toBe(0);
    const again = cliIo(h);
    expect(await main(['channels', 'revoke', 'tg', '55'], again)).toBe(1);
    expect(again.err()).toContain('never paired');
    expect(await main(['channels', 'approve', 'tg'], cliIo(h))).toBe(2);
  });

  it('parses the command line, refusing what it does not take', () => {
    expect(parseChannelsArgs(['pairings'])).toMatchObject({ sub: 'pairings' });
    expect(parseChannelsArgs(['pairings', 'tg'])).toMatchObject({ sub: 'pairings', channel: 'tg' });
    expect(parseChannelsArgs(['revoke', 'tg', '42'])).toMatchObject({ sub: 'revoke', channel: 'tg', senderId: '42' });
    expect(() => parseChannelsArgs(['senders'])).toThrow(/one channel NAME/);
    expect(() => parseChannelsArgs(['teleport'])).toThrow(/unknown channels subcommand/);
  });
});
