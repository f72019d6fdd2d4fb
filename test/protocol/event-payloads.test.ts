/**
 * No event's payload may name an envelope field: the bus spreads the payload after `{seq, type, at, beat}`, so a
 * payload field called `seq` replaced the event's own seq in the journal (found with `webhook.disabled`, whose failed
 * event's seq is therefore `failedSeq`).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  EVENT_PAYLOADS,
  EventEnvelopeSchema,
  VigilEventSchema,
  type VigilEvent,
} from '../../src/protocol/events.schema.js';
import type { RpcResult } from '../../src/protocol/rpc-methods.js';

describe('event payloads', () => {
  it('never define a field of the envelope (seq, type, at, beat)', () => {
    // The envelope schema holds seq, at and beat; `type` is the discriminator each event's schema adds.
    const envelope = [...Object.keys(EventEnvelopeSchema.shape), 'type'];
    const clashes = Object.entries(EVENT_PAYLOADS).flatMap(([type, schema]) =>
      Object.keys(schema.shape)
        .filter((field) => envelope.includes(field))
        .map((field) => `${type}.${field}`),
    );
    expect(envelope).toEqual(expect.arrayContaining(['seq', 'type', 'at', 'beat']));
    expect(clashes).toEqual([]);
  });

  it('are typed as `VigilEvent` where a schema gives them: checking `type` narrows the payload', () => {
    // zod's own inference from the mapped options paired every type with every payload (~3,700 members), where
    // `type` narrowed nothing and each cast cost the compiler up to a minute. Checked by the type check (tsc).
    expectTypeOf<z.output<typeof VigilEventSchema>>().toEqualTypeOf<VigilEvent>();
    expectTypeOf<RpcResult<'events.history'>>().toEqualTypeOf<VigilEvent[]>();
    const event = VigilEventSchema.parse({
      seq: 1,
      type: 'tool.approval_decided',
      at: new Date(0).toISOString(),
      beat: 0,
      callId: 'c',
      name: 'n',
      approved: true,
    });
    if (event.type === 'tool.approval_decided') expectTypeOf(event.approved).toEqualTypeOf<boolean>();
    expect(event.type).toBe('tool.approval_decided');
  });
});
