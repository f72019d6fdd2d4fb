/**
 * The think traces in LevelDB: a summary per think (what `thinks.list` pages through) and its details (the prompt's
 * sections and, with content tracing, the text) under the same time-ordered id, so a listing never reads prompt text.
 * Retention: the newest `maxCount` thinks, none older than `maxAgeMs`; what falls outside is deleted in the batch
 * that adds the new one. Keys are ids only: no user text is ever part of a key.
 */
import { VigilError, describeError } from '../../errors.js';
import {
  ThinkTraceSchema,
  ThinkTraceSummarySchema,
  type ThinkTrace,
  type ThinkTraceSummary,
} from '../../protocol/think-trace.schema.js';
import { z } from 'zod';
import {
  SUBLEVELS,
  parseStoredJson,
  readTogether,
  toStoreError,
  type VigilBatchOp,
  type VigilDb,
} from '../store/vigil-db.js';

/** A kept think's id, and its start time once read. */
interface KeptTrace {
  id: string;
  startedAt: number | undefined;
}

/** How many thinks are kept by default, and for how long. */
export const DEFAULT_TRACE_MAX_COUNT = 1000;
export const DEFAULT_TRACE_MAX_AGE_DAYS = 30;
const DAY_MS = 86_400_000;

/** `thinks.list`'s page when no limit is given. */
export const DEFAULT_THINKS_PAGE = 20;

const DetailSchema = ThinkTraceSchema.pick({ sections: true, content: true });

/** Called with every trace once it is stored (the OpenTelemetry exporter turns it into spans). */
export type TraceListener = (trace: ThinkTrace) => void;

/** Retention of the store. */
export interface TraceRetention {
  /** Keep at most this many thinks (the newest). */
  maxCount: number;
  /** Drop thinks that started more than this many ms ago; 0 keeps them whatever their age. */
  maxAgeMs: number;
}

/** Retention in days, as `VIGIL_TRACE_MAX_AGE_DAYS` gives it. */
export function retention(maxCount: number, maxAgeDays: number): TraceRetention {
  return { maxCount, maxAgeMs: maxAgeDays * DAY_MS };
}

/** The trace store; `open` it before use. */
export class ThinkTraceStore {
  private readonly summaries;
  private readonly details;
  /**
   * Ids kept, oldest first, with their start time once known: the open reads keys only (a boot must not parse a
   * thousand summaries), and pruning by age reads the start time of the oldest ones as it reaches them.
   */
  private kept: KeptTrace[] = [];
  private idsRead = false;
  // The newest id on disk at open, when the others are read later (`readIdsAfter`).
  private newestAtOpen: string | undefined;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<TraceListener>();

  private constructor(
    private readonly db: VigilDb,
    private readonly retention: TraceRetention,
    private readonly onListenerError: (err: unknown) => void,
  ) {
    this.summaries = db.sublevel<string, unknown>(SUBLEVELS.thinkTraces, { valueEncoding: 'json' });
    this.details = db.sublevel<string, unknown>(SUBLEVELS.thinkTraceDetails, { valueEncoding: 'json' });
  }

  /**
   * Opens the store and indexes the ids on disk (summaries only, in key order). With `readIdsAfter`, only the newest
   * id is read now and the rest once that promise settles (the daemon passes "gateway listening"): a year-old store
   * holds its full thousand, whose keys sit among their summaries, a few ms of every boot. The first `add` waits for
   * them; nothing else needs them.
   */
  static async open(
    db: VigilDb,
    retention: TraceRetention = { maxCount: DEFAULT_TRACE_MAX_COUNT, maxAgeMs: DEFAULT_TRACE_MAX_AGE_DAYS * DAY_MS },
    onListenerError: (err: unknown) => void = () => undefined,
    options: { readIdsAfter?: PromiseLike<unknown> } = {},
  ): Promise<ThinkTraceStore> {
    const store = new ThinkTraceStore(
      db,
      { maxCount: Math.max(1, retention.maxCount), maxAgeMs: Math.max(0, retention.maxAgeMs) },
      onListenerError,
    );
    try {
      if (options.readIdsAfter === undefined) await store.readIds();
      else [store.newestAtOpen] = await store.summaries.keys({ reverse: true, limit: 1 }).all();
    } catch (err) {
      throw toStoreError(err, 'read the think traces');
    }
    if (options.readIdsAfter !== undefined) {
      // Ahead of every write: a failed read is retried by the first add, which fails with it if it fails again.
      const after = Promise.resolve(options.readIdsAfter).then(() => store.readIds());
      store.writes = after.catch(() => undefined);
    }
    return store;
  }

  /** Reads the kept ids (oldest first) unless they are read already. */
  private async readIds(): Promise<void> {
    if (this.idsRead) return;
    const ids = await this.summaries.keys().all();
    this.kept = ids.map((id) => ({ id, startedAt: undefined }));
    this.idsRead = true;
  }

  /** The newest id kept, if any (so a restarted id factory issues only later ones). */
  newestId(): string | undefined {
    return this.kept.at(-1)?.id ?? this.newestAtOpen;
  }

  /** How many thinks are kept (with `readIdsAfter`, known once `flush()` resolves). */
  get size(): number {
    return this.kept.length;
  }

  /** Stores `trace` (its id must sort after every kept one), pruning what retention drops in the same batch. */
  add(trace: ThinkTrace, now: number): Promise<void> {
    const write = this.writes.then(async () => {
      try {
        await this.readIds();
      } catch (err) {
        throw toStoreError(err, 'read the think traces');
      }
      const { sections, content, ...summary } = trace;
      const ops: VigilBatchOp[] = [
        { type: 'put', sublevel: this.summaries, key: trace.id, value: summary },
        {
          type: 'put',
          sublevel: this.details,
          key: trace.id,
          value: content === undefined ? { sections } : { sections, content },
        },
      ];
      const next = [...this.kept, { id: trace.id, startedAt: trace.startedAt }];
      const cutoff = this.retention.maxAgeMs > 0 ? now - this.retention.maxAgeMs : Number.NEGATIVE_INFINITY;
      let drop = Math.max(0, next.length - this.retention.maxCount);
      while (drop < next.length - 1 && (await this.startedAtOf(next[drop]!)) < cutoff) drop += 1;
      for (const old of next.slice(0, drop)) {
        ops.push(
          { type: 'del', sublevel: this.summaries, key: old.id },
          { type: 'del', sublevel: this.details, key: old.id },
        );
      }
      try {
        await this.db.batch<string, unknown>(ops, {});
      } catch (err) {
        throw toStoreError(err, `store the trace of think ${trace.id}`);
      }
      this.kept = next.slice(drop);
      for (const listener of this.listeners) {
        try {
          listener(trace);
        } catch (err) {
          this.onListenerError(err);
        }
      }
    });
    // Only the queue's tail swallows a failure (the next write still runs); the caller gets it from `write`.
    this.writes = write.catch(() => undefined);
    return write;
  }

  /** When a kept think started: read from its summary the first time it is asked (an unreadable one counts as 0, pruned first). */
  private async startedAtOf(kept: KeptTrace): Promise<number> {
    if (kept.startedAt !== undefined) return kept.startedAt;
    const value = await this.summaries.get(kept.id).catch(() => undefined);
    const summary = ThinkTraceSummarySchema.safeParse(value);
    kept.startedAt = summary.success ? summary.data.startedAt : 0;
    return kept.startedAt;
  }

  /** `thinks.list`: the newest `limit` summaries, older than `before` when given, newest first. */
  async list(options: { limit?: number; before?: string } = {}): Promise<ThinkTraceSummary[]> {
    const range = {
      reverse: true,
      limit: options.limit ?? DEFAULT_THINKS_PAGE,
      ...(options.before === undefined ? {} : { lt: options.before }),
    };
    const out: ThinkTraceSummary[] = [];
    try {
      for await (const value of this.summaries.values(range)) {
        const summary = ThinkTraceSummarySchema.safeParse(value);
        if (summary.success) out.push(summary.data);
      }
    } catch (err) {
      throw toStoreError(err, 'list the think traces');
    }
    return out;
  }

  /** `thinks.get`: the whole trace; THINK_NOT_FOUND when it is not kept. */
  async get(id: string): Promise<ThinkTrace> {
    let stored: Array<Uint8Array | undefined>;
    try {
      // One snapshot for both: a prune landing between two reads would show the summary without its sections.
      stored = await readTogether(this.db, id, [this.summaries, this.details]);
    } catch (err) {
      throw toStoreError(err, `read the trace of think ${id}`);
    }
    let summary: unknown;
    let detail: unknown;
    try {
      [summary, detail] = stored.map((bytes) => (bytes === undefined ? undefined : parseStoredJson(bytes)));
    } catch (err) {
      throw new VigilError('STORE_CORRUPT', `The stored trace of think ${id} is not JSON: ${describeError(err)}.`, {
        data: { id },
        cause: err,
      });
    }
    if (summary === undefined) {
      throw new VigilError(
        'THINK_NOT_FOUND',
        `No think trace ${JSON.stringify(id)} is kept: it never existed or was pruned.`,
        { data: { id } },
      );
    }
    const parsed = ThinkTraceSummarySchema.extend(DetailSchema.shape).safeParse({
      ...(summary as object),
      ...(DetailSchema.safeParse(detail).data ?? { sections: [] }),
    });
    if (!parsed.success) {
      throw new VigilError(
        'STORE_CORRUPT',
        `The stored trace of think ${id} does not validate: ${z.prettifyError(parsed.error)}`,
        { data: { id } },
      );
    }
    return parsed.data;
  }

  /** Calls `listener` with every trace stored from now on; returns the function that stops it. */
  onTrace(listener: TraceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every write started so far has finished. */
  async flush(): Promise<void> {
    await this.writes;
  }
}
