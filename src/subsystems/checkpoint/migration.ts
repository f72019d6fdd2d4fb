/** The shape of one checkpoint format migration step, apart from the registry that chains them (so steps never import it). */

/** Upgrades a raw record of format N to format N+1 (the migrator stamps `formatVersion` afterwards). */
export type Migration = (raw: Record<string, unknown>) => Record<string, unknown>;

/** Migration steps keyed by the format version they upgrade from. */
export type MigrationRegistry = Readonly<Record<number, Migration>>;
