import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPC_METHODS } from '../../src/protocol/rpc-methods.js';
import { startGatewayHarness, type Frame, type GatewayHarness, type RawClient } from './gateway.fixture.js';

let h: GatewayHarness;
let client: RawClient;
beforeAll(async () => {
  h = await startGatewayHarness();
  client = await h.connect();
});
afterAll(() => h.close());

let nextId = 0;
const METHODS = Object.keys(RPC_METHODS);
const HUGE = ['1e400', '-1e400', '123456789012345678901234567890', '1e-400', '9007199254740993', '-0'];

/** A request that is well-formed JSON-RPC (its method and params may still be wrong): it must be answered. */
const wellFormed = fc
  .record({
    method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 30 })),
    params: fc.option(
      fc.oneof(
        fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 })),
        fc.array(fc.jsonValue({ maxDepth: 2 })),
      ),
      { nil: undefined },
    ),
  })
  .map(({ method, params }) => {
    nextId += 1;
    const id = `w${nextId}`;
    return { text: JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }), id }), id };
  });

/** Anything else a client might throw at the server. */
const garbage = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null'),
  fc.integer({ min: 1, max: 100_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1, max: 20_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.integer({ min: 1, max: 20_000 }).map((n) => '['.repeat(n)),
  fc.constantFrom(...HUGE).map((n) => `{"jsonrpc":"2.0","method":"heartbeat.status","id":${n}}`),
  fc.constantFrom(...HUGE).map((n) => `{"jsonrpc":"2.0","method":"checkpoint.list","params":{"limit":${n}},"id":"h"}`),
  fc
    .record({
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 1 })),
      method: fc.jsonValue({ maxDepth: 1 }),
      params: fc.jsonValue({ maxDepth: 2 }),
      id: fc.jsonValue({ maxDepth: 1 }),
    })
    .map((value) => JSON.stringify(value)),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 20 }).map((batch) => JSON.stringify(batch)),
);

const isResponse = (frame: Frame): boolean =>
  frame['jsonrpc'] === '2.0' &&
  'id' in frame &&
  'result' in frame !== 'error' in frame &&
  (!('error' in frame) || Number.isInteger((frame['error'] as { code: unknown }).code));
const isNotification = (frame: Frame): boolean =>
  frame['jsonrpc'] === '2.0' && typeof frame.method === 'string' && !('id' in frame);

describe('the gateway under random frames', () => {
  it('answers every well-formed request, stays open and keeps beating whatever else arrives', async () => {
    const beatsBefore = h.runtime.status().beatCount;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(wellFormed, garbage), { minLength: 1, maxLength: 12 }), async (frames) => {
        const awaited: Array<Promise<Frame>> = [];
        for (const frame of frames) {
          sent += 1;
          if (typeof frame === 'string') client.send(frame);
          else {
            client.send(frame.text);
            awaited.push(client.waitFor((f) => f.id === frame.id, `the answer to ${frame.id}`));
          }
        }
        const probe = client.request('heartbeat.status');
        // Some requests (checkpoint.create) are answered at the next beat: let simulated time run meanwhile.
        const answers = await h.until(Promise.all([...awaited, probe]), 50);
        for (const answer of answers) expect(isResponse(answer)).toBe(true);
        expect((answers.at(-1) as Frame)['result']).toMatchObject({ beatCount: expect.any(Number) });
      }),
      { numRuns: 400 },
    );
    expect(sent).toBeGreaterThan(2000);
    for (const frame of client.frames as Frame[]) {
      const batch = Array.isArray(frame) ? (frame as Frame[]) : [frame];
      for (const item of batch) expect(isResponse(item) || isNotification(item)).toBe(true);
    }
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    await h.advance(5000);
    expect(h.runtime.status().beatCount).toBeGreaterThan(beatsBefore + 4);
  });
});
