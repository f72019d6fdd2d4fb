/**
 * A property over the real gateway: for random tokens (random scopes, names and lifetimes) making random calls (any
 * method of the catalogue, sample or random params), a call beyond its token's scope is always -32003 and never
 * changes any state; a forged token (a real token's id with another secret) never gets a connection.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_SCOPES, type TokenScope } from '../../src/protocol/token-scopes.js';
import { tryUpgrade } from './ws-upgrade.js';
import { ALL_METHOD_NAMES, mayCall, snapshot, startScopedGateway, type ScopedGateway } from './token-scopes.fixture.js';

let g: ScopedGateway;
beforeAll(async () => {
  // Every run presents a forged token once: the failed-auth throttle (its own tests: auth-throttle.test.ts) is off, so
  // the twentieth forgery is still refused for what it is (401), not for its address (429).
  g = await startScopedGateway({ gateway: { failedAuthLimit: { perSecond: 0, burst: 1 } } });
});
afterAll(() => g?.h.close());

const callArb = fc.record({
  method: fc.constantFrom(...ALL_METHOD_NAMES),
  // Half the calls carry the sample params (which would succeed with the right scope), half random ones.
  params: fc.oneof(fc.constant(undefined), fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }))),
});

const tokenArb = fc.record({
  scope: fc.constantFrom<TokenScope>(...TOKEN_SCOPES),
  expiresIn: fc.option(fc.integer({ min: 60, max: 86_400 * 365 }), { nil: undefined }),
});

let made = 0;

describe('token scopes (property)', () => {
  it('never lets a call beyond its token’s scope change anything', async () => {
    await fc.assert(
      fc.asyncProperty(tokenArb, fc.array(callArb, { minLength: 1, maxLength: 8 }), async (spec, calls) => {
        made += 1;
        const created = await g.h.runtime.tokens.create({
          scope: spec.scope,
          name: `prop-${made}`,
          ...(spec.expiresIn === undefined ? {} : { expiresIn: spec.expiresIn }),
        });
        // A forged token: the real id, another secret of the same shape.
        const forged = `${created.token.slice(0, 21)}${'A'.repeat(43)}`;
        expect(await tryUpgrade(g.h.rpcUrl, { authorization: `Bearer ${forged}` })).toBe(401);

        const client = await g.h.connect({ token: created.token });
        const refused = calls.filter((call) => !mayCall(spec.scope, call.method));
        const before = await snapshot(g.admin);
        for (const { method, params } of refused) {
          const answer = await client.request(method, params ?? g.params[method] ?? {});
          expect(answer.error, method).toMatchObject({ code: -32003 });
        }
        await g.h.settle();
        expect(await snapshot(g.admin)).toEqual(before);
        await client.close();
      }),
      { numRuns: 25 },
    );
  });
});
