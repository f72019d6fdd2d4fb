/** Format 1 → 2: adds the budget actor's state and the debrief timers, which format 1 did not record. */
import type { Migration } from '../migration.js';

/**
 * A format-1 agent had no budget state: it gets an empty one that the runtime rebases on restore (time zone and cap
 * from the configuration, today's spend from the ledger, which format 1 already never reset). No turn was recorded,
 * so none counts as cut short.
 */
export const migrateV1ToV2: Migration = (raw) => {
  const actors = (raw['actors'] ?? {}) as Record<string, unknown>;
  const conversation = (raw['conversation'] ?? {}) as Record<string, unknown>;
  const createdAt = typeof raw['createdAt'] === 'number' ? raw['createdAt'] : 0;
  return {
    ...raw,
    actors: {
      ...actors,
      budget: {
        timezone: 'UTC',
        dayKey: '1970-01-01',
        dailyCapMicroUsd: 0,
        topUpMicroUsd: 0,
        spentTodayMicroUsd: 0,
        sessionCostMicroUsd: 0,
        sleeping: false,
        exceeded: false,
        windDownNotified: false,
        wakeRequested: false,
        updatedAt: createdAt,
      },
    },
    conversation: { ...conversation, lastDebriefAt: null, turnStartedAt: null, turnInProgress: false },
  };
};
