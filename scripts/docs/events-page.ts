/** docs/reference/events.md's body: the envelope and every event type with its payload and what it means. */
import { fileURLToPath } from 'node:url';
import { ALL_EVENT_TYPES, EVENT_PAYLOADS, EventEnvelopeSchema } from '../../src/protocol/events.schema.js';
import { LiveEventSchema } from '../../src/protocol/live-events.schema.js';
import { entryDocComments } from './doc-comments.js';
import { code, table } from './markdown.js';
import { fieldsOf, jsonSchemaOf, typeText } from './schema-type.js';

const EVENTS_SOURCE = fileURLToPath(new URL('../../src/protocol/events.schema.ts', import.meta.url));
const CHANNEL_EVENTS_SOURCE = fileURLToPath(new URL('../../src/protocol/channel-events.schema.ts', import.meta.url));
const LIVE_EVENTS_SOURCE = fileURLToPath(new URL('../../src/protocol/live-events.schema.ts', import.meta.url));
const PAYLOAD = { depth: 3, constraints: false } as const;

/**
 * The envelope's fields, then one table per area (the part of the type before the dot), in the schema's order, then
 * the live-only events.
 */
export function renderEvents(): string {
  // The channels' events are spread into EVENT_PAYLOADS from a file of their own.
  const meanings = new Map([
    ...entryDocComments(EVENTS_SOURCE, 'EVENT_PAYLOADS'),
    ...entryDocComments(CHANNEL_EVENTS_SOURCE, 'CHANNEL_EVENT_PAYLOADS'),
  ]);
  const envelope = table(
    ['field', 'type'],
    [
      ['type', 'string'],
      ...fieldsOf(jsonSchemaOf(EventEnvelopeSchema, 'output'), PAYLOAD).map((f) => [f.name, f.type]),
    ].map(([name, type]) => [code(name!), code(type!)]),
  );
  const areas = new Map<string, string[][]>();
  for (const type of ALL_EVENT_TYPES) {
    const area = type.split('.')[0]!;
    const payload = typeText(jsonSchemaOf(EVENT_PAYLOADS[type], 'output'), PAYLOAD);
    const rows = areas.get(area) ?? [];
    rows.push([code(type), code(payload), meanings.get(type) ?? '']);
    areas.set(area, rows);
  }
  const sections = [...areas].map(
    ([area, rows]) => `### ${code(`${area}.*`)}\n\n${table(['type', 'payload', 'meaning'], rows)}\n`,
  );
  return [
    `Every event: ${code('{seq, type, at, beat, …payload}')}`,
    '',
    envelope,
    '',
    ...sections,
    renderLiveEvents(),
  ].join('\n');
}

/** The live-only events: `{type, at, beat, …payload}` without a seq, to feeds that name their type exactly. */
function renderLiveEvents(): string {
  const meanings = entryDocComments(LIVE_EVENTS_SOURCE, 'LIVE_EVENT_TYPES');
  const rows = LiveEventSchema.options.map((schema) => {
    const type = schema.shape.type.value;
    const payload = schema.omit({ type: true, at: true, beat: true });
    return [code(type), code(typeText(jsonSchemaOf(payload, 'output'), PAYLOAD)), meanings.get(type) ?? ''];
  });
  const intro =
    `Live only: ${code('{type, at, beat, …payload}')} with no ${code('seq')}, never journaled (not in ` +
    `${code('events.history')}, never replayed), sent only to a subscription whose ${code('types')} names the type ` +
    `exactly (${code('agent.*')} and an unfiltered feed never get one).`;
  return `### Live-only events\n\n${intro}\n\n${table(['type', 'payload', 'meaning'], rows)}\n`;
}
