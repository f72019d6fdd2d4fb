/** The crash loop's types: kill modes and plans, options, the report, and what each restart must still see. */

/** Where in a daemon's life the kill lands. */
export type KillMode = 'after-checkpoint' | 'mid-save' | 'mid-think' | 'after-message' | 'random-beat' | 'during-boot';

/** How to run the loop. */
export interface CrashLoopOptions {
  /** An empty (or previously looped) data dir. */
  dataDir: string;
  /** SIGKILLs to deliver. */
  kills: number;
  seed: number;
  /** Overrides of `CRASH_LOOP_ENV`. */
  env?: Record<string, string>;
  /** Bound on a boot, from spawn to `gateway listening` (default 30 s: two cores shared with other tests). */
  bootTimeoutMs?: number;
  /** Bound on waiting for a kill moment once armed (default 15 s). */
  triggerTimeoutMs?: number;
  /** Progress lines (the seed first). */
  progress?: (line: string) => void;
  /** A progress line every N kills (default 25). */
  progressEvery?: number;
}

/** What a loop did. */
export interface CrashLoopReport {
  seed: number;
  kills: number;
  killsByMode: Record<KillMode, number>;
  /** `mid-save` kills after which the checkpoint of that beat was never reported stored: the save was cut short. */
  savesCutShort: number;
  /** `during-boot` kills that landed before the restore finished (LevelDB open, restore, or module loading). */
  bootsCutShort: number;
  /** `checkpoint.created` log lines seen over all lifetimes. */
  checkpointsCreated: number;
  /** Highest beat count a stored checkpoint reached. */
  maxCheckpointBeat: number;
  /** Goals added before a completed checkpoint and found again after the next restart. */
  goalsVerified: number;
  /** Messages acknowledged right before a kill, all found in the conversation log and answered at the end. */
  messagesVerified: number;
  /** The highest event seq delivered (it only grew, across every restart). */
  maxSeq: number;
  /** Spend today (USD) at the end, from the ledger on disk. */
  spentTodayUsd: number;
  /** Spawn to `gateway listening`, ms. */
  bootMs: { median: number; max: number };
  durationMs: number;
  /** Checkpoints left on disk after the final clean stop. */
  finalCheckpoints: number;
}

/** What every later lifetime must still see. */
export interface Expectations {
  maxCheckpointBeat: number;
  newestCheckpointId: string | null;
  spentFloorUsd: number;
  /** `budget.status.resetsAt` of the day the floor belongs to. */
  spentDay: string | null;
  /** Goals committed by a checkpoint and not yet seen after a restart: id → title. */
  unverifiedGoals: Map<string, string>;
  /** The highest event seq any earlier life delivered: later ones must be above it. */
  maxSeq: number;
  /** Turn ids of messages `agent.send` acknowledged right before a kill: each must be in the log and answered. */
  ackedMessages: string[];
}

/** One kill: its mode, and which occurrence of its trigger kills. */
export interface Plan {
  mode: KillMode;
  /** Which occurrence of the trigger kills (1-based). */
  nth: number;
}
