/**
 * No event's payload may name an envelope field: the bus spreads the payload after `{seq, type, at, beat}`, so a
 * payload field called `seq` replaced the event's own seq in the journal (found with `webhook.disabled`, whose failed
 * event's seq is therefore `failedSeq`).
 */
import { describe, expect, it } from 'vitest';
import { EVENT_PAYLOADS, EventEnvelopeSchema } from '../../src/protocol/events.schema.js';

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
});
