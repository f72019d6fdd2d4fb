/** Checkpoint format migrations: one step per format version, chained on load to bring an old record up to the current format. */
import { VigilError, describeError } from '../../errors.js';
import { CHECKPOINT_FORMAT_VERSION } from '../../protocol/checkpoint-format.schema.js';
import { migrateV1ToV2 } from './migrations/v1-to-v2.js';

import type { MigrationRegistry } from './migration.js';

export type { Migration, MigrationRegistry } from './migration.js';

/** Brings any raw decoded record to `currentVersion`, or throws CHECKPOINT_CORRUPT / CHECKPOINT_FORMAT_UNSUPPORTED. */
export type Migrate = (raw: unknown) => unknown;

/** Builds a migrator over `registry` targeting `currentVersion`. */
export function createMigrator(registry: MigrationRegistry, currentVersion: number): Migrate {
  return (raw) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new VigilError('CHECKPOINT_CORRUPT', `A checkpoint record must be an object, not ${describeValue(raw)}.`);
    }
    let record = raw as Record<string, unknown>;
    const version = record['formatVersion'];
    if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
      throw new VigilError(
        'CHECKPOINT_CORRUPT',
        `The checkpoint's formatVersion ${describeValue(version)} is not a format version.`,
      );
    }
    if (version > currentVersion) {
      throw new VigilError(
        'CHECKPOINT_FORMAT_UNSUPPORTED',
        `The checkpoint has format ${version}, newer than format ${currentVersion} which this Vigil reads.`,
        { data: { formatVersion: version, supported: currentVersion } },
      );
    }
    for (let from = version; from < currentVersion; from += 1) {
      const step = Object.hasOwn(registry, from) ? registry[from] : undefined;
      if (step === undefined) {
        throw new VigilError(
          'CHECKPOINT_CORRUPT',
          `No migration from checkpoint format ${from} to ${from + 1} exists.`,
        );
      }
      try {
        record = { ...step(record), formatVersion: from + 1 };
      } catch (err) {
        throw new VigilError(
          'CHECKPOINT_CORRUPT',
          `Migrating the checkpoint from format ${from} to ${from + 1} failed: ${describeError(err).replace(/\.$/, '')}.`,
          { cause: err },
        );
      }
    }
    return record;
  };
}

/** The production steps, keyed by the format they upgrade from. */
export const CHECKPOINT_MIGRATIONS: MigrationRegistry = Object.freeze({ 1: migrateV1ToV2 });

/** Migrates a raw record to `CHECKPOINT_FORMAT_VERSION` with the production steps. */
export const migrateCheckpoint: Migrate = createMigrator(CHECKPOINT_MIGRATIONS, CHECKPOINT_FORMAT_VERSION);

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined (missing)';
  if (Array.isArray(value)) return 'an array';
  // Only a function or a symbol has no JSON text (a parsed record holds neither): its kind says enough.
  return JSON.stringify(value) ?? `a ${typeof value}`;
}
