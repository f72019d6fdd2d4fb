/**
 * The conversation's search index kept in step with the log: a `ConversationSearchIndex` (the one the recall benchmark
 * measures: its documents, options and ranking) fed every live entry of the conversation log (user and agent messages,
 * all that retention keeps) as it is written, and told when retention or a restore takes one out of the live log.
 * In memory only, like the long-term memory's: it is rebuilt from the log in the background after the boot, so it can
 * never disagree with the log after a crash and puts no new file (nor any plaintext) on disk. Hits are read back from
 * the log.
 */
import { VigilError } from '../../errors.js';
import type { ConversationLog } from './conversation-log.js';
import type { ConversationHit } from './search/conversation-hit-ranking.js';
import type { ConversationDocumentFormat } from './search/conversation-search-document.js';
import { ConversationSearchIndex } from './search/conversation-search-index.js';

// Entries read and indexed per step of the background build, between which the event loop runs (beats, requests):
// one step holds the loop for a few milliseconds only.
const BUILD_CHUNK = 500;

/** A window of time a search keeps to (epoch ms, both exclusive): only messages said after `after` and before `before`. */
export interface TimeWindow {
  before?: number;
  after?: number;
}

/** Where the background build is: waiting for the boot to finish, running, done, or failed (searches fail with it). */
type BuildState =
  | { kind: 'waiting' }
  | { kind: 'building'; done: Promise<void> }
  | { kind: 'built'; done: Promise<void> }
  | { kind: 'failed'; done: Promise<void>; error: unknown };

/** Options of the index. */
export interface ConversationIndexOptions {
  /** The background build starts once this settles (default: at `open`); the daemon passes its gateway's listening. */
  buildAfter?: PromiseLike<unknown>;
  /** Told when the background build fails (searches then fail with the same error). */
  onBuildError?: (err: unknown) => void;
  /** How messages become documents: the agent's name, the zone their days are written in (VIGIL_TIMEZONE). */
  format?: ConversationDocumentFormat;
}

/** The conversation's index, kept in step with the log it is opened on. */
export class ConversationIndex {
  private readonly index: ConversationSearchIndex;
  /** Seqs that left the log while the build runs: a chunk read before they went must not bring them back. */
  private readonly removedDuringBuild = new Set<number>();
  private state: BuildState = { kind: 'waiting' };
  private stopping = false;

  constructor(
    private readonly log: ConversationLog,
    private readonly options: ConversationIndexOptions = {},
  ) {
    this.index = new ConversationSearchIndex(options.format);
  }

  /** Follows the log's writes and removals from now on; the build of what it already holds starts at `buildAfter`. */
  open(): void {
    this.log.onAppend((message) => this.index.add(message));
    this.log.onRemove((seqs) => this.remove(seqs));
    const start = () => this.startBuild();
    if (this.options.buildAfter === undefined) start();
    else this.options.buildAfter.then(start, start);
  }

  /** Starts the background build, once (later calls do nothing). */
  startBuild(): void {
    if (this.state.kind !== 'waiting') return;
    const done = this.build();
    this.state = { kind: 'building', done };
    done.then(
      () => {
        this.state = { kind: 'built', done };
      },
      (error: unknown) => {
        this.state = { kind: 'failed', done, error };
        // A build cut short by `stop` is no failure worth reporting.
        if (!this.stopping) this.options.onBuildError?.(error);
      },
    );
  }

  /** Resolves once every message the log held at boot is indexed (starting the build if it waits still). */
  whenBuilt(): Promise<void> {
    this.startBuild();
    return this.state.kind === 'waiting' ? Promise.resolve() : this.state.done;
  }

  /** True once the build is done: until then a think's automatic recall finds nothing in the conversation. */
  get built(): boolean {
    return this.state.kind === 'built';
  }

  /** How many messages are indexed. */
  get size(): number {
    return this.index.size;
  }

  /** True when message `seq` is indexed (it is in the live log). */
  has(seq: number): boolean {
    return this.index.has(seq);
  }

  /** True when message `seq` is indexed and was said within `window` (a second ranking keeps to the same window). */
  within(seq: number, window: TimeWindow): boolean {
    return this.index.within(seq, window);
  }

  /** Stops a build still running (the database is about to close) and waits for it to let go. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.state.kind !== 'waiting') await this.state.done.catch(() => undefined);
  }

  /**
   * The best `limit` messages for `query` within `window`, best first, as seqs and scores: the lexical ranking, from
   * what is indexed now (a caller that needs the whole log waits for `whenBuilt` first).
   */
  rank(query: string, limit: number, window: TimeWindow = {}): ConversationHit[] {
    return this.index.search(query, { limit, ...window });
  }

  private remove(seqs: readonly number[]): void {
    const building = this.state.kind === 'building' || this.state.kind === 'waiting';
    for (const seq of seqs) {
      this.index.remove(seq);
      if (building) this.removedDuringBuild.add(seq);
    }
  }

  private async build(): Promise<void> {
    let after = 0;
    try {
      for (;;) {
        if (this.stopping) {
          throw new VigilError('RUNTIME_STOPPED', 'The runtime stopped before the conversation was indexed.');
        }
        const chunk = await this.log.readAfter(after, BUILD_CHUNK);
        if (chunk.length === 0) break;
        this.index.addAll(
          this.removedDuringBuild.size === 0 ? chunk : chunk.filter((m) => !this.removedDuringBuild.has(m.seq)),
        );
        after = chunk[chunk.length - 1]!.seq;
        // Lets beats and requests run between chunks: 10,000 messages are indexed without a long stall.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.removedDuringBuild.clear();
    }
  }
}
