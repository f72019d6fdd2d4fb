/**
 * The full-text index of the conversation: every live entry of the conversation log (user and agent messages, all
 * that retention keeps), indexed as it is written and dropped as retention or a restore takes it out of the live log.
 * In memory only, like the long-term memory's: it is rebuilt from the log in the background after the boot, so it can
 * never disagree with the log after a crash and puts no new file (nor any plaintext) on disk. Only each message's
 * time is held beside the index; hits are read back from the log.
 */
import { VigilError } from '../../errors.js';
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import { MemoryIndex, type IndexHit } from '../memory/memory-index.js';
import { stemmedWithoutStopWords } from '../memory/text-analysis.js';
import type { ConversationLog } from './conversation-log.js';

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
  /** What a message is indexed as (default: its text); the recall benchmark may add the speaker and the date. */
  textOf?: (message: ConversationMessage) => string;
}

/** The conversation's index, kept in step with the log it is opened on. */
export class ConversationIndex {
  private readonly index = new MemoryIndex(stemmedWithoutStopWords);
  /** Each indexed message's time (epoch ms), for the time window; the texts stay in the log. */
  private readonly atBySeq = new Map<number, number>();
  /** Seqs that left the log while the build runs: a chunk read before they went must not bring them back. */
  private readonly removedDuringBuild = new Set<number>();
  private readonly textOf: (message: ConversationMessage) => string;
  private state: BuildState = { kind: 'waiting' };
  private stopping = false;

  constructor(
    private readonly log: ConversationLog,
    private readonly options: ConversationIndexOptions = {},
  ) {
    this.textOf = options.textOf ?? ((message) => message.text);
  }

  /** Follows the log's writes and removals from now on; the build of what it already holds starts at `buildAfter`. */
  open(): void {
    this.log.onAppend((message) => this.add(message));
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
    return this.atBySeq.size;
  }

  /** True when message `seq` is indexed (it is in the live log). */
  has(seq: number): boolean {
    return this.atBySeq.has(seq);
  }

  /** True when message `seq` is indexed and was said within `window` (a second ranking keeps to the same window). */
  within(seq: number, { before, after }: TimeWindow): boolean {
    const at = this.atBySeq.get(seq);
    return at !== undefined && (before === undefined || at < before) && (after === undefined || at > after);
  }

  /** Stops a build still running (the database is about to close) and waits for it to let go. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.state.kind !== 'waiting') await this.state.done.catch(() => undefined);
  }

  /**
   * The best `limit` messages for `query` within `window`, best first, as seqs and BM25 scores: the lexical ranking,
   * from what is indexed now (a caller that needs the whole log waits for `whenBuilt` first).
   */
  rank(query: string, limit: number, window: TimeWindow = {}): IndexHit[] {
    const { before, after } = window;
    const accept =
      before === undefined && after === undefined
        ? undefined
        : (seq: number) => {
            const at = this.atBySeq.get(seq);
            return at !== undefined && (before === undefined || at < before) && (after === undefined || at > after);
          };
    return this.index.search(query, limit, accept);
  }

  private add(message: ConversationMessage): void {
    if (this.index.has(message.seq)) return;
    this.index.add({ seq: message.seq, content: this.textOf(message) });
    this.atBySeq.set(message.seq, message.at);
  }

  private remove(seqs: readonly number[]): void {
    const building = this.state.kind === 'building' || this.state.kind === 'waiting';
    for (const seq of seqs) {
      this.index.discard(seq);
      this.atBySeq.delete(seq);
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
        for (const message of chunk) if (!this.removedDuringBuild.has(message.seq)) this.add(message);
        after = chunk[chunk.length - 1]!.seq;
        // Lets beats and requests run between chunks: 10,000 messages are indexed without a long stall.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.removedDuringBuild.clear();
    }
  }
}
