/**
 * Least privilege over the real gateway (CONTRACT §14), driven by the catalogue: every method called with a read, a
 * talk and an operate token over WebSocket is allowed exactly when its declared scope allows (a new method is covered
 * by being in the catalogue); a refused call is -32003 naming the scope and changes nothing. SSE, /metrics and HTTP
 * routes check the same scopes (403).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RPC_METHODS } from '../../src/protocol/rpc-methods.js';
import { TOKEN_SCOPES } from '../../src/protocol/token-scopes.js';
import { openSse } from './sse-client.js';
import { ALL_METHOD_NAMES, mayCall, snapshot, startScopedGateway, type ScopedGateway } from './token-scopes.fixture.js';

let g: ScopedGateway | undefined;
afterEach(async () => {
  await g?.h.close();
  g = undefined;
});

describe('token scopes over the WebSocket gateway', () => {
  it.each(TOKEN_SCOPES)(
    'a %s token may call exactly the methods its scope allows; every other is -32003 and changes nothing',
    async (scope) => {
      g = await startScopedGateway();
      const client = await g.h.connect({ token: g.tokens[scope] });
      const refused = ALL_METHOD_NAMES.filter((method) => !mayCall(scope, method));
      // An unknown param makes an allowed call -32602 (the strict params schema) and change nothing; a refused one
      // is -32003 before its params are read.
      for (const method of ALL_METHOD_NAMES) {
        const answer = await client.request(method, { probeUnknownParam: true });
        if (mayCall(scope, method)) expect(answer.error, method).toMatchObject({ code: -32602 });
        else
          expect(answer.error, method).toMatchObject({
            code: -32003,
            data: { scope: RPC_METHODS[method].scope, vigilCode: 'AUTH_FORBIDDEN' },
          });
      }
      // Refused with valid params: still -32003, and no state it would have changed moved.
      const before = await snapshot(g.admin);
      const deniedBefore = g.h.ofType('auth.denied').length;
      for (const method of refused) {
        const answer = await client.request(method, g.params[method] ?? {});
        expect(answer.error, method).toMatchObject({ code: -32003, data: { scope: RPC_METHODS[method].scope } });
      }
      await g.h.settle();
      expect(await snapshot(g.admin)).toEqual(before);
      const denied = g.h.ofType('auth.denied').slice(deniedBefore);
      expect(denied.map((event) => event.method)).toEqual(refused);
      for (const event of denied) expect(event).toMatchObject({ tokenName: scope, tokenScope: scope });
      expect(JSON.stringify(g.h.events)).not.toContain(g.tokens[scope]);
    },
  );

  it('lets a talk token talk and set goals, and a read token read', async () => {
    g = await startScopedGateway();
    const talk = await g.h.connect({ token: g.tokens.talk });
    const read = await g.h.connect({ token: g.tokens.read });
    const added = await talk.request('goals.add', { title: 'from talk' });
    expect(added.result).toMatchObject({ title: 'from talk' });
    expect((await talk.request('agent.send', { text: 'hi' })).result).toMatchObject({ turnId: expect.any(String) });
    const goals = (await read.request('goals.list')).result as Array<{ title: string }>;
    expect(goals.map((goal) => goal.title)).toContain('from talk');
    expect((await read.request('auth.whoami')).result).toEqual({ name: 'read', scope: 'read', expiresAt: null });
    expect((await g.admin.request('auth.whoami')).result).toEqual({
      name: 'daemon',
      scope: 'operate',
      expiresAt: null,
    });
  });

  it('rpc.discover states each method’s scope (x-vigil-scope) as the catalogue declares it', async () => {
    g = await startScopedGateway();
    const read = await g.h.connect({ token: g.tokens.read });
    const doc = (await read.request('rpc.discover')).result as {
      methods: Array<{ name: string; 'x-vigil-scope': string }>;
    };
    expect(Object.fromEntries(doc.methods.map((m) => [m.name, m['x-vigil-scope']]))).toEqual(
      Object.fromEntries(ALL_METHOD_NAMES.map((name) => [name, RPC_METHODS[name].scope])),
    );
  });
});

describe('token scopes over HTTP and SSE', () => {
  it.each(TOKEN_SCOPES)(
    'a %s token reads /events and /metrics; a path needing operate is 403 below it',
    async (scope) => {
      g = await startScopedGateway({
        gateway: {
          routes: { '/admin-only': (_req, res) => res.end('ok') },
          routeScopes: { '/admin-only': 'operate' },
        },
      });
      const { url } = g.h.gateway;
      const auth = { authorization: `Bearer ${g.tokens[scope]}` };
      const sse = await openSse(`${url}/events?types=heartbeat.beat`, auth);
      expect(sse.status).toBe(200);
      sse.close();
      const metrics = await fetch(`${url}/metrics`, { headers: auth });
      expect(metrics.status).toBe(200);
      await metrics.text();
      const admin = await fetch(`${url}/admin-only`, { headers: auth });
      if (scope === 'operate') expect(await admin.text()).toBe('ok');
      else {
        expect(admin.status).toBe(403);
        expect(await admin.json()).toMatchObject({ scope: 'operate', vigilCode: 'AUTH_FORBIDDEN' });
        await g.h.settle();
        expect(g.h.ofType('auth.denied').at(-1)).toMatchObject({ method: 'GET /admin-only', scope: 'operate' });
        const text = await (await fetch(`${url}/metrics`, { headers: auth })).text();
        expect(text).toMatch(/^vigil_gateway_auth_denied_total\{scope="operate"\} 1$/m);
      }
    },
  );
});
