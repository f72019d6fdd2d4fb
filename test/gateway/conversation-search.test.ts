/** `conversation.search` over a real gateway: found best first, the time window, its params checked (-32602 naming the field), a read token may call it, the typed client and `vigil conversation search`. */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { connect } from '../../src/client/vigil-client.js';
import { ConversationSearchHitSchema } from '../../src/protocol/conversation.schema.js';
import { cliIo, startGatewayHarness, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('conversation.search over the gateway', () => {
  it('finds what was said, best first, within before/after; bad params are -32602 naming the field', async () => {
    h = await startGatewayHarness();
    const harness = h;
    const raw = await harness.connect();
    const send = async (text: string) => {
      const answer = await raw.request('agent.send', { text, from: 'alice' });
      expect(answer.error).toBeUndefined();
      await harness.advance(2000);
    };
    await send('My favourite painter is Hilma af Klint.');
    const middle = harness.clock.now();
    await send('We talked about the weather today.');
    await send('Did you see paintings by Klint at the Guggenheim?');

    const found = await raw.request('conversation.search', { query: 'Klint painting' });
    const hits = ConversationSearchHitSchema.array().parse(found.result);
    const users = hits.filter((hit) => hit.role === 'user');
    expect(users.map((hit) => hit.text)).toEqual(
      expect.arrayContaining([
        'My favourite painter is Hilma af Klint.',
        'Did you see paintings by Klint at the Guggenheim?',
      ]),
    );
    expect(users[0]).toMatchObject({ from: 'alice', seq: expect.any(Number), at: expect.any(String) });
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));

    const before = ConversationSearchHitSchema.array().parse(
      (await raw.request('conversation.search', { query: 'Klint', before: new Date(middle).toISOString() })).result,
    );
    expect(before.filter((hit) => hit.role === 'user').map((hit) => hit.text)).toEqual([
      'My favourite painter is Hilma af Klint.',
    ]);
    const after = ConversationSearchHitSchema.array().parse(
      (await raw.request('conversation.search', { query: 'Klint', after: new Date(middle).toISOString(), limit: 1 }))
        .result,
    );
    expect(after).toHaveLength(1);
    expect(Date.parse(after[0]!.at)).toBeGreaterThan(middle);

    for (const [params, field] of [
      [{ query: 'x', before: 'yesterday' }, 'before'],
      [{ query: 'x', after: '2026-03-01' }, 'after'],
      [{ query: 'x', limit: 101 }, 'limit'],
      [{ query: '   ' }, 'query'],
      [{ limit: 3 }, 'query'],
    ] as const) {
      const bad = await raw.request('conversation.search', params);
      expect(bad.error, JSON.stringify(params)).toMatchObject({ code: -32602, data: [{ path: [field] }] });
    }

    // A read token may search; the typed client checks the answer against the schema.
    const readToken = (await harness.runtime.tokens.create({ scope: 'read', name: 'reader' })).token;
    const client = await connect({ url: harness.gateway.url, token: readToken, reconnect: false });
    try {
      const typed = await client.conversation.search({ query: 'Guggenheim', limit: 5 });
      // The question and the offline agent's reply quoting it: both say the word, the reply following the question too.
      expect(typed.slice(0, 2).map((hit) => hit.text)).toContain('Did you see paintings by Klint at the Guggenheim?');
      expect(typed[0]?.text).toContain('Guggenheim');
    } finally {
      await client.close();
    }

    // The CLI: one line per hit, --json the hits, bad flags exit 2.
    const lineIo = cliIo(harness);
    expect(await main(['conversation', 'search', 'Hilma', 'af', 'Klint', '--limit', '2'], lineIo)).toBe(0);
    // Two lines: the message and the offline agent's reply quoting it, in either order.
    expect(lineIo.out().split('\n')).toHaveLength(3);
    expect(lineIo.out()).toMatch(/^#\d+ \S+Z user \(alice\) \d+\.\d\d: My favourite painter is Hilma af Klint\.$/m);
    const jsonIo = cliIo(harness);
    expect(
      await main(['conversation', '--json', 'search', 'Guggenheim', '--after', new Date(middle).toISOString()], jsonIo),
    ).toBe(0);
    expect(ConversationSearchHitSchema.array().parse(JSON.parse(jsonIo.out()))[0]?.text).toContain('Guggenheim');
    const noneIo = cliIo(harness);
    expect(await main(['conversation', 'search', 'xylophone'], noneIo)).toBe(0);
    expect(noneIo.err()).toBe('vigil: no message matches "xylophone".\n');
    const badIo = cliIo(harness);
    expect(await main(['conversation', 'search', 'x', '--before', 'yesterday'], badIo)).toBe(2);
    expect(badIo.err()).toMatch(/--before must be an ISO time/);
    expect(await main(['conversation', 'search'], cliIo(harness))).toBe(2);
    expect(await main(['conversation', 'search', 'x', '--limit', '0'], cliIo(harness))).toBe(2);
    // The listing is unchanged: no positional, --before a seq.
    const listIo = cliIo(harness);
    expect(await main(['conversation', '--limit', '1'], listIo)).toBe(0);
    expect(listIo.out()).toMatch(/^#\d+ /);
  });
});
