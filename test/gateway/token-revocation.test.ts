/**
 * A token ends at once (CONTRACT §14): a revoked or expired token is refused, and the WebSocket connections and SSE
 * streams opened with it close within a second, saying why. Expiry runs on the runtime's simulated clock. The secret
 * is stored only as a salted hash, sealed with the rest under VIGIL_CHECKPOINT_KEY, and appears in no log or event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recordingLogger } from '../faults/recording-logger.js';
import { openRaw } from './gateway.fixture.js';
import { openSse } from './sse-client.js';
import { startScopedGateway, type ScopedGateway } from './token-scopes.fixture.js';
import { tryUpgrade } from './ws-upgrade.js';

let g: ScopedGateway | undefined;
afterEach(async () => {
  await g?.h.close();
  g = undefined;
});

/** Resolves with `promise`, or rejects once `ms` of real time passed: the bound the contract sets. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('revoking a token', () => {
  it('closes its open WebSocket (1008) and SSE stream within a second, and refuses it from then on', async () => {
    g = await startScopedGateway();
    const { url } = g.h.gateway;
    const ws = await g.h.connect({ token: g.tokens.talk });
    const bystander = await g.h.connect({ token: g.tokens.read });
    const sse = await openSse(`${url}/events`, { authorization: `Bearer ${g.tokens.talk}` });
    expect(sse.status).toBe(200);
    expect((await ws.request('heartbeat.status')).result).toBeDefined();

    expect((await g.admin.request('tokens.revoke', { name: 'talk' })).result).toBe(true);
    expect(await within(ws.closed, 1000, 'the WebSocket close')).toEqual({
      code: 1008,
      reason: 'the token was revoked',
    });
    await within(
      sse.waitFor((messages) => messages.some((m) => m.event === 'closed')),
      1000,
      'the SSE stream end',
    );
    expect(sse.messages.find((m) => m.event === 'closed')?.data).toBe('{"reason":"token_revoked"}');
    sse.close();

    // Refused everywhere from now on; the other token's connection goes on.
    expect(await tryUpgrade(g.h.rpcUrl, { authorization: `Bearer ${g.tokens.talk}` })).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${g.tokens.talk}` } })).status).toBe(401);
    expect((await bystander.request('heartbeat.status')).result).toBeDefined();
    expect(g.h.ofType('auth.token_revoked')).toMatchObject([{ name: 'talk' }]);
    const names = ((await g.admin.request('tokens.list')).result as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(['operate', 'read', 'spare']);
    expect((await g.admin.request('tokens.revoke', { name: 'talk' })).error).toMatchObject({
      code: -32004,
      data: { vigilCode: 'TOKEN_NOT_FOUND' },
    });
  });
});

describe('an expiring token', () => {
  it('is refused once its time passes on the runtime clock, and what it opened is closed then', async () => {
    g = await startScopedGateway();
    const created = (await g.admin.request('tokens.create', { scope: 'read', name: 'brief', expiresIn: '90s' }))
      .result as { token: string; expiresAt: string };
    expect(created.expiresAt).toBe(new Date(g.h.clock.now() + 90_000).toISOString());
    const ws = await g.h.connect({ token: created.token });
    expect((await ws.request('auth.whoami')).result).toEqual({
      name: 'brief',
      scope: 'read',
      expiresAt: created.expiresAt,
    });

    await g.h.advance(89_000, 1000);
    expect((await ws.request('heartbeat.status')).result).toBeDefined();
    await g.h.advance(1000, 1000);
    expect(await within(ws.closed, 1000, 'the WebSocket close')).toEqual({
      code: 1008,
      reason: 'the token was expired',
    });
    expect(await tryUpgrade(g.h.rpcUrl, { authorization: `Bearer ${created.token}` })).toBe(401);
    // Still listed (with its expiry) until revoked, so an operator sees what lapsed.
    const listed = (await g.admin.request('tokens.list')).result as Array<{ name: string; expiresAt: string | null }>;
    expect(listed.find((t) => t.name === 'brief')?.expiresAt).toBe(created.expiresAt);
  });

  it('takes seconds or a duration string, and refuses anything else with -32602', async () => {
    g = await startScopedGateway();
    const create = (params: unknown) => g!.admin.request('tokens.create', params);
    expect((await create({ scope: 'read', expiresIn: 3600 })).result).toMatchObject({
      expiresAt: new Date(g.h.clock.now() + 3_600_000).toISOString(),
    });
    expect((await create({ scope: 'read', expiresIn: '30d' })).result).toMatchObject({
      expiresAt: new Date(g.h.clock.now() + 30 * 86_400_000).toISOString(),
    });
    for (const expiresIn of ['soon', 0, -5, 1.5, '12 h'])
      expect((await create({ scope: 'read', expiresIn })).error, String(expiresIn)).toMatchObject({ code: -32602 });
    expect((await create({ scope: 'admin' })).error).toMatchObject({ code: -32602 });
    expect((await create({ scope: 'read', name: 'read' })).error).toMatchObject({
      code: -32602,
      data: { vigilCode: 'TOKEN_NAME_TAKEN' },
    });
  });
});

describe('token secrets', () => {
  it('are stored as salted hashes, sealed under VIGIL_CHECKPOINT_KEY, and never logged or in an event', async () => {
    const { log, text } = recordingLogger();
    g = await startScopedGateway({
      runtime: { config: { checkpointKey: 'c'.repeat(64) }, logger: log },
      gateway: { log },
    });
    const created = (await g.admin.request('tokens.create', { scope: 'talk', name: 'sealed-one' })).result as {
      token: string;
    };
    const client = await openRaw(g.h.rpcUrl, created.token);
    await client.request('tokens.list');
    await client.close();
    const raw: string[] = [];
    for await (const [key, value] of g.h.db.iterator()) raw.push(`${key}=${value}`);
    const everything = raw.join('\n');
    expect(everything).toContain('!gateway-tokens!');
    // Sealed: neither the secret, nor the name, nor the hash's field names are readable at rest.
    expect(everything).not.toContain(created.token.slice(21));
    expect(everything).not.toContain('sealed-one');
    expect(everything).not.toContain('digest');
    expect(text()).not.toContain(created.token.slice(21));
    expect(JSON.stringify(g.h.events)).not.toContain(created.token.slice(21));
    expect(text()).toContain('gateway call refused: tokens.list needs scope operate');
    const listed = (await g.admin.request('tokens.list')).result as Array<Record<string, unknown>>;
    for (const entry of listed)
      expect(Object.keys(entry).sort()).toEqual(['createdAt', 'expiresAt', 'lastUsedAt', 'name', 'scope']);
  });
});
