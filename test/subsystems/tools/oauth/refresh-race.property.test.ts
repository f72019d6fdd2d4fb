/**
 * Refreshes of one server's tokens, raced: the refresh timer (ours, before expiry), the SDK's own refresh inside
 * `auth()` after a 401 to its transport, and tool calls whose 401 asks for one, in every order a fast-check scheduler
 * picks for the token endpoint's answers, with refresh-token rotation on or off and an endpoint that is slow or fails.
 * Whatever the order: never two refresh grants in flight, never `needs_auth` while the authorization server would
 * still take a refresh token it issued, and once the endpoint works again the stored refresh token is a good one.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../../src/events/event-bus.js';
import type { VigilEvent } from '../../../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../../../src/shared/clock.js';
import { silentLogger } from '../../../../src/shared/logger.js';
import type { VigilDb } from '../../../../src/subsystems/store/vigil-db.js';
import { CallbackUrl } from '../../../../src/subsystems/tools/oauth/callback-url.js';
import { OAuthStore } from '../../../../src/subsystems/tools/oauth/oauth-store.js';
import { ServerAuth } from '../../../../src/subsystems/tools/oauth/server-auth.js';
import { createOAuthFetchServer, type TokenEndpointMode } from '../../../fixtures/oauth-fetch-server.js';

/** What happens, in the order the scheduler lets it. */
type Action =
  /** Simulated time passes: the refresh timer (or a retry) may fire. */
  | { kind: 'tick'; ms: number }
  /** A request of the SDK's transport: a 401 has the SDK refresh inside its own `auth()`. */
  | { kind: 'request' }
  /** A tool call: a 401 to it is not re-sent, and asks our refresh to run. */
  | { kind: 'call' }
  /** The server forgets its access tokens (refused early): the next request meets a 401. */
  | { kind: 'drop_access' }
  /** The token endpoint answers, fails with 503, or cannot be reached, from now on. */
  | { kind: 'endpoint'; mode: TokenEndpointMode }
  /** The authorization server revokes every refresh token: a sign-in is then rightly needed. */
  | { kind: 'revoke' };

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('tick'), ms: fc.integer({ min: 1_000, max: 70_000 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('request') }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('call') }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('drop_access') }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('endpoint'),
      mode: fc.constantFrom<TokenEndpointMode>('ok', 'server_error', 'unreachable'),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('revoke') }), weight: 1 },
);

const CALLBACK = 'http://127.0.0.1:9';

/** Lets real I/O (the in-memory LevelDB) and the scheduler's tasks run until nothing is left. */
async function drain(s: fc.Scheduler): Promise<void> {
  for (let round = 0; round < 50; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    if (s.count() === 0) {
      await new Promise((resolve) => setImmediate(resolve));
      if (s.count() === 0) return;
    }
    await s.waitAll();
  }
}

describe('refreshes of one server raced', () => {
  it('never overlap, never end in needs_auth while a refresh token is good, and leave a good one stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.boolean(),
        fc.array(action, { minLength: 1, maxLength: 12 }),
        async (s, rotation, actions) => {
          const clock = createSimulatedClock();
          const server = createOAuthFetchServer({
            now: () => clock.now(),
            accessTokenSeconds: 60,
            rotation,
            answerGate: (label) => s.schedule(Promise.resolve(label)).then(() => undefined),
          });
          const db = new MemoryLevel() as unknown as VigilDb;
          const store = await OAuthStore.open(db);
          const issued = server.issue();
          await store.update('remote', (record) => ({
            ...record,
            client: { client_id: 'vigil', redirect_uris: [`${CALLBACK}/oauth/callback`], issuer: server.base },
            clientRedirectUrl: `${CALLBACK}/oauth/callback`,
            tokens: {
              value: { ...issued, issuer: server.base },
              obtainedAt: clock.now(),
              expiresAt: clock.now() + 60_000,
            },
          }));
          const bus = new EventBus({ clock, currentBeat: () => 0 });
          const events: VigilEvent[] = [];
          bus.events$.subscribe((event) => events.push(event));
          const auth = new ServerAuth({
            server: 'remote',
            entry: { url: server.url },
            store,
            callbackUrl: new CallbackUrl(CALLBACK),
            bus,
            clock,
            log: silentLogger,
            fetch: server.fetch,
          });
          auth.attach({ hold: () => undefined, reconnect: () => undefined });
          let revoked = false;

          const check = () => {
            expect(server.maxRefreshInFlight, 'refresh grants in flight at once').toBeLessThanOrEqual(1);
            if (auth.phase === 'needs_auth')
              expect(server.anyRefreshValid(), 'needs_auth while a refresh token is good').toBe(false);
          };
          const run = async (step: Action): Promise<void> => {
            switch (step.kind) {
              case 'tick':
                clock.increment(step.ms);
                break;
              case 'request': {
                const transport = new StreamableHTTPClientTransport(new URL(server.url), {
                  authProvider: auth.provider,
                  fetch: auth.fetch,
                });
                await transport.start();
                await transport
                  .send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })
                  .catch(() => undefined);
                break;
              }
              case 'call': {
                const tokens = auth.provider.tokens();
                await Promise.resolve(
                  auth.fetch(server.url, {
                    method: 'POST',
                    headers: {
                      'content-type': 'application/json',
                      ...(tokens === undefined ? {} : { authorization: `Bearer ${tokens.access_token}` }),
                    },
                    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }),
                  }),
                ).catch(() => undefined);
                break;
              }
              case 'drop_access':
                server.dropAccessTokens();
                break;
              case 'endpoint':
                server.mode = step.mode;
                break;
              case 'revoke':
                revoked = true;
                server.revokeRefreshTokens();
                break;
            }
            check();
          };

          const runs = actions.map((step) => s.schedule(Promise.resolve(step.kind)).then(() => run(step)));
          await s.waitFor(Promise.all(runs));
          await drain(s);
          check();

          // The endpoint works again: within the longest retry wait, a good refresh token is stored (unless revoked).
          server.mode = 'ok';
          for (let i = 0; i < 4; i += 1) {
            clock.increment(10 * 60_000);
            await drain(s);
            await auth.settled();
            await drain(s);
            check();
          }
          auth.stop();
          if (!revoked) {
            const stored = store.get('remote').tokens?.value['refresh_token'];
            expect(server.acceptsRefresh(typeof stored === 'string' ? stored : undefined), 'stored refresh token').toBe(
              true,
            );
            expect(auth.phase).toBe('signed_in');
            expect(events.filter((event) => event.type === 'mcp.auth_required')).toEqual([]);
          }
          await db.close();
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);
});
