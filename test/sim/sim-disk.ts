/**
 * The simulated disk: one memory-level store that outlives every runtime incarnation, seen by each through a
 * `SimLevel` of its own. Writes go through one queue in order, as LevelDB's writer queue does, and a synced write
 * takes simulated time (its fsync), so the runtime's other work runs meanwhile as it would on a real disk. A SimLevel
 * counts its operations, can fail a write (an I/O error the runtime must survive), and is cut when its process dies:
 * from then on nothing it asks of the disk completes (a dead process waits forever); the write being synced at that
 * moment survives (it is in the OS's log already), the ones queued behind it do not.
 */
import { AbstractIterator, AbstractLevel, type AbstractBatchOperation } from 'abstract-level';
import { MemoryLevel } from 'memory-level';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';

const VIEW = { keyEncoding: 'view', valueEncoding: 'view' } as const;
const JOURNAL_PREFIX = '!event-journal!';
/** A channel's reply record (`!channels!NAME!r!TURN`). */
const CHANNEL_REPLY_KEY = /^!channels![^!]+!r!/;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A crash armed on an operation of one incarnation: the process dies just before or just after it takes effect. */
export interface ArmedCrash {
  atOp: number;
  /** After: the operation reached the store, but its caller never hears so. */
  when: 'before' | 'after';
}

/** What a view needs from the simulation. */
export interface SimLevelHooks {
  /** The armed crash fired inside operation `op` (the simulator then restarts the runtime). */
  crashed(op: number, what: string): void;
  /** Whether this write fails with an I/O error. */
  failWrite(what: string): boolean;
  /** Resolves after one fsync's simulated time. */
  fsync(): Promise<void>;
}

/** The store under every view: memory-level for the seeds, an on-disk LevelDB for the simulated year. */
export type BackingStore = AbstractLevel<Uint8Array, Uint8Array, Uint8Array> & {
  compactRange?: (start: unknown, end: unknown, options: unknown) => Promise<void>;
};

/** The store that survives crashes, and what happened to it. */
export class SimDisk {
  private storeValue: BackingStore;
  /** Seqs of journal entries whose write failed (they are missing from the history by design). */
  readonly failedJournalSeqs = new Set<number>();
  /** Chat messages (`CHAT!MESSAGE_ID`) a channel's reply record named in a write that failed. */
  readonly failedReplyMessages = new Set<string>();
  failedWrites = 0;
  ops = 0;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(store?: BackingStore) {
    this.storeValue =
      store ?? (new MemoryLevel<Uint8Array, Uint8Array>({ storeEncoding: 'view' }) as unknown as BackingStore);
  }

  /** The store the views write to. */
  get store(): BackingStore {
    return this.storeValue;
  }

  /** The same data dir opened again (an on-disk store is closed and reopened across a restart, as a process would). */
  reopen(store: BackingStore): void {
    this.storeValue = store;
  }

  /** Runs one operation on the store, counted while it is in flight (an on-disk store answers from its thread pool). */
  async track<T>(operation: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    try {
      return await operation();
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Null when no operation is in flight, else a promise of the moment none is. */
  busy(): Promise<void> | null {
    return this.inFlight === 0 ? null : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** A fresh view for one incarnation. */
  view(hooks: SimLevelHooks): SimLevel {
    return new SimLevel(this, hooks);
  }

  /** Every journaled event on disk, oldest first (read behind any runtime's back). */
  async journal<T>(): Promise<T[]> {
    const events: T[] = [];
    const range = { gt: encoder.encode(JOURNAL_PREFIX), lt: encoder.encode('!event-journal"'), ...VIEW };
    for await (const value of this.store.values(range)) events.push(...journalEntry<T>(value));
    return events;
  }

  /**
   * Every key under `prefix` (returned without it) with its JSON value, as the disk holds them at the moment of the
   * call: the walk is opened at once, and memory-level's iterator reads the tree as it was then.
   */
  entriesAt(prefix: string): Promise<Map<string, unknown>> {
    const range = { gt: encoder.encode(prefix), lt: encoder.encode(`${prefix.slice(0, -1)}"`), ...VIEW };
    const iterator = this.store.iterator(range);
    return this.track(async () => {
      const entries = new Map<string, unknown>();
      for (const [key, value] of await iterator.all())
        entries.set(decoder.decode(key).slice(prefix.length), JSON.parse(decoder.decode(value)) as unknown);
      return entries;
    });
  }

  /** The newest journaled seq on disk (the last of the newest entry's events), or 0. */
  async lastJournalSeq(): Promise<number> {
    const range = {
      gt: encoder.encode(JOURNAL_PREFIX),
      lt: encoder.encode('!event-journal"'),
      reverse: true,
      limit: 1,
      ...VIEW,
    };
    for await (const value of this.store.values(range)) return journalEntry<{ seq: number }>(value).at(-1)?.seq ?? 0;
    return 0;
  }

  /** Records the journal entries of a write that failed. */
  noteFailed(ops: readonly Op[]): void {
    this.failedWrites += 1;
    for (const op of ops) {
      const key = decoder.decode(op.key);
      if (op.type === 'put' && key.startsWith(JOURNAL_PREFIX))
        for (const event of journalEntry<{ seq: number }>(op.value!)) this.failedJournalSeqs.add(event.seq);
      if (op.type === 'put' && CHANNEL_REPLY_KEY.test(key)) {
        const reply = JSON.parse(decoder.decode(op.value)) as { chatId: string; slots: { messageId?: string }[] };
        for (const slot of reply.slots)
          if (slot.messageId !== undefined) this.failedReplyMessages.add(`${reply.chatId}!${slot.messageId}`);
      }
    }
  }
}

type Op = { type: 'put' | 'del'; key: Uint8Array; value?: Uint8Array };

/** A journal entry's events: an array of a batch's events, or one event (the format before batching). */
function journalEntry<T>(value: Uint8Array): T[] {
  const parsed = JSON.parse(decoder.decode(value)) as T | T[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

interface QueuedWrite {
  synced: boolean;
  apply: () => Promise<void>;
  applied: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** One incarnation's database over the shared store. */
export class SimLevel extends AbstractLevel<Uint8Array, string, string> {
  private cutFlag = false;
  private count = 0;
  private armed: ArmedCrash | null = null;
  private readonly queue: QueuedWrite[] = [];
  private writing = false;
  private dying: Promise<void> | undefined;

  constructor(
    private readonly disk: SimDisk,
    private readonly sim: SimLevelHooks,
  ) {
    super(
      { encodings: { view: true }, permanence: true, createIfMissing: false, errorIfExists: false },
      { keyEncoding: 'utf8', valueEncoding: 'utf8' },
    );
  }

  /** As the runtime's database type. */
  asVigilDb(): VigilDb {
    return this as unknown as VigilDb;
  }

  get isCut(): boolean {
    return this.cutFlag;
  }

  /** Operations made so far by this incarnation. */
  get opCount(): number {
    return this.count;
  }

  /** Dies at this incarnation's operation `crash.atOp`. */
  arm(crash: ArmedCrash | null): void {
    this.armed = crash;
  }

  /** The process died: the write being synced lands, the queued ones are lost, and nothing completes any more. */
  cut(): Promise<void> {
    this.dying ??= this.die(null);
    return this.dying;
  }

  /** Dies; `landing` (the operation a crash armed "after" fired on) reaches the store after the write in progress. */
  private async die(landing: (() => Promise<void>) | null): Promise<void> {
    if (this.cutFlag) return;
    this.cutFlag = true;
    const head = this.writing ? this.queue[0] : undefined;
    this.queue.length = 0;
    if (head !== undefined && !head.applied) {
      head.applied = true;
      await head.apply().catch(() => undefined);
    }
    await landing?.().catch(() => undefined);
  }

  /** Counts the operation and fires an armed crash; false when the process is (now) dead. */
  private enter(what: string, landing: (() => Promise<void>) | null): boolean {
    if (this.cutFlag) return false;
    this.count += 1;
    this.disk.ops += 1;
    if (this.armed === null || this.count < this.armed.atOp) return true;
    const { when } = this.armed;
    this.armed = null;
    this.dying ??= this.die(when === 'after' ? landing : null);
    this.sim.crashed(this.count, what);
    return false;
  }

  /** Settles once a crash fired inside an operation has left the disk as it will stay. */
  dead(): Promise<void> {
    return this.dying ?? this.cut();
  }

  private async read<T>(what: string, read: () => Promise<T>): Promise<T> {
    if (!this.enter(what, null)) return never();
    const result = await read();
    return this.cutFlag ? never() : result;
  }

  private async write(what: string, ops: Op[], synced: boolean, apply: () => Promise<void>): Promise<void> {
    if (!this.enter(what, apply)) return never();
    if (this.sim.failWrite(what)) {
      this.disk.noteFailed(ops);
      throw Object.assign(new Error(`simulated I/O error on ${what}`), { code: 'LEVEL_IO_ERROR' });
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ synced, apply, applied: false, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.writing || this.queue.length === 0 || this.cutFlag) return;
    this.writing = true;
    const head = this.queue[0]!;
    const start = head.synced ? this.sim.fsync() : Promise.resolve();
    void start.then(async () => {
      if (this.cutFlag || head.applied) return;
      head.applied = true;
      this.queue.shift();
      try {
        await head.apply();
        if (!this.cutFlag) head.resolve();
      } catch (err) {
        if (!this.cutFlag) head.reject(err);
      }
      this.writing = false;
      this.pump();
    });
  }

  async _put(key: Uint8Array, value: Uint8Array, options: { sync?: boolean }): Promise<void> {
    return this.batchOf('put', [{ type: 'put', key, value }], options.sync === true);
  }

  async _del(key: Uint8Array, options: { sync?: boolean }): Promise<void> {
    return this.batchOf('del', [{ type: 'del', key }], options.sync === true);
  }

  async _batch(operations: Op[], options: { sync?: boolean }): Promise<void> {
    const ops = operations.map((op) =>
      op.type === 'put'
        ? { type: 'put' as const, key: op.key, value: op.value! }
        : { type: 'del' as const, key: op.key },
    );
    return this.batchOf(`batch (${describeKeys(ops)})`, ops, options.sync === true);
  }

  async _clear(options: Record<string, unknown>): Promise<void> {
    return this.write('clear', [], false, () =>
      this.disk.track(() => this.disk.store.clear({ ...pickRange(options), ...VIEW })),
    );
  }

  async _get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.read('get', () => this.disk.track(() => this.disk.store.get(key, VIEW)));
  }

  async _getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return this.read('getMany', () => this.disk.track(() => this.disk.store.getMany(keys, VIEW)));
  }

  /** LevelDB's compaction, when the store under it has one (the retention keeper gives space back with it). */
  async compactRange(start: unknown, end: unknown, options: unknown): Promise<void> {
    const store = this.disk.store;
    if (store.compactRange !== undefined && !this.isCut)
      await this.disk.track(() => store.compactRange!(start, end, options));
  }

  private batchOf(what: string, ops: Op[], synced: boolean): Promise<void> {
    const batch = ops as AbstractBatchOperation<BackingStore, Uint8Array, Uint8Array>[];
    // `sync` reaches an on-disk store as it is (its fsync is part of what the simulated year measures).
    return this.write(what, ops, synced, () =>
      this.disk.track(() => this.disk.store.batch(batch, { ...VIEW, sync: synced } as never)),
    );
  }

  _iterator(options: Record<string, unknown>): SimIterator {
    return new SimIterator(this, options, (step) => this.read('iterate', () => this.disk.track(step)));
  }

  /** The shared store's iterator for `options` (keys and values as views). */
  innerIterator(options: Record<string, unknown>) {
    return this.disk.store.iterator({ ...pickRange(options), ...VIEW });
  }
}

/** An iterator whose every step goes through its incarnation's gate. */
class SimIterator extends AbstractIterator<SimLevel, Uint8Array, Uint8Array> {
  private readonly inner;

  constructor(
    db: SimLevel,
    options: Record<string, unknown>,
    private readonly step: <T>(inner: () => Promise<T>) => Promise<T>,
  ) {
    super(db, options);
    this.inner = db.innerIterator(options);
  }

  async _next(): Promise<[Uint8Array, Uint8Array] | undefined> {
    return this.step(() => this.inner.next());
  }

  async _nextv(size: number): Promise<[Uint8Array, Uint8Array][]> {
    return this.step(() => this.inner.nextv(size));
  }

  async _all(): Promise<[Uint8Array, Uint8Array][]> {
    const all: [Uint8Array, Uint8Array][] = [];
    // In pages: an on-disk store sizes its buffer by what it is asked for.
    for (let left = this.limit - this.count; left > 0;) {
      const page = await this.step(() => this.inner.nextv(Math.min(left, 1_000)));
      all.push(...page);
      left -= page.length;
      if (page.length === 0) break;
    }
    return all;
  }

  async _close(): Promise<void> {
    await this.inner.close();
  }
}

/**
 * The range of a walk, and whether it wants keys and values: a keys-only walk (`keys()`, which abstract-level runs as
 * an iterator without values) must reach the store as one, or it would copy every value into JavaScript where
 * classic-level copies none, and cost a long-lived store's boot in the simulation what it does not on disk.
 */
function pickRange(options: Record<string, unknown>): Record<string, unknown> {
  const range: Record<string, unknown> = {};
  for (const key of ['gt', 'gte', 'lt', 'lte', 'reverse', 'limit', 'keys', 'values'] as const)
    if (options[key] !== undefined) range[key] = options[key];
  return range;
}

function describeKeys(ops: readonly Op[]): string {
  return [...new Set(ops.map((op) => decoder.decode(op.key).split('!')[1] ?? '(root)'))].join(', ');
}

function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}
