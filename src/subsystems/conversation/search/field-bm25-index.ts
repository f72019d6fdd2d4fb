/**
 * An in-memory inverted index over documents of a few weighted text fields, ranked by BM25+ exactly as MiniSearch
 * ranks them (its default tokenizer, k 1.2, b 0.7, δ 0.5, a field's length its number of distinct tokens, each
 * score multiplied by how many of the query's words matched, OR between words), but made for the conversation's
 * search at 10,000 messages and more: postings are arrays of document slots and term counts, a search adds into one
 * reused array of scores and keeps only the best hits it is asked for. MiniSearch builds an object per matching
 * document per field and sorts every match; a common word matches thousands of messages, and that, not the lookups,
 * made a search cost 20 ms (docs/performance.md "Conversation search at 10,000 messages").
 *
 * Removal marks a document's slot dead; the postings keep it until dead slots are an eighth of the live ones, then
 * all are compacted at once (what MiniSearch's vacuum does in the background).
 */

/** BM25+'s parameters (MiniSearch's defaults). */
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };

// MiniSearch's default tokenizer: documents and queries are split alike on spaces and punctuation.
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u;

// Processed words are cached (a conversation repeats its words): cleared when it holds this many.
const TERM_CACHE = 50_000;
// Dead slots are compacted away once there are this many and an eighth as many as live ones.
const MIN_DEAD_TO_COMPACT = 256;

/** Turns one word into the term indexed or looked up, or null to leave it out. */
export type TermAnalysis = (word: string) => string | null;

/** How an index reads its documents and queries. */
export interface FieldBm25Options<F extends string> {
  fields: readonly F[];
  /** Each field's weight (1 when not given). */
  boost: Partial<Record<F, number>>;
  /** A word of a document. */
  documentTerm: TermAnalysis;
  /** A word of a query. */
  queryTerm: TermAnalysis;
}

/** A document found: its id and its score (higher is better). */
export interface ScoredId {
  id: number;
  score: number;
}

/** The documents holding a term in one field: their slots and how often it occurs in each. */
interface Posting {
  slots: number[];
  counts: number[];
}

/** The index. */
export class FieldBm25Index<F extends string> {
  private readonly boosts: number[];
  private readonly termCache = new Map<string, string | null>();
  /** Per term, per field (by position in `fields`), its posting. */
  private postings = new Map<string, Array<Posting | undefined>>();
  private idOfSlot: number[] = [];
  private alive: boolean[] = [];
  /** Per field, each slot's length (distinct tokens). */
  private lengths: number[][];
  private readonly totalLength: number[];
  private readonly slotOfId = new Map<number, number>();
  private dead = 0;
  // A search's scratch space, reused: scores, matched words and the last word counted, by slot.
  private scores = new Float64Array(0);
  private matched = new Uint16Array(0);
  private lastWord = new Int32Array(0);

  constructor(private readonly options: FieldBm25Options<F>) {
    this.boosts = options.fields.map((field) => options.boost[field] || 1);
    this.lengths = options.fields.map(() => []);
    this.totalLength = options.fields.map(() => 0);
  }

  /** How many documents are indexed. */
  get size(): number {
    return this.slotOfId.size;
  }

  /** True when document `id` is indexed. */
  has(id: number): boolean {
    return this.slotOfId.has(id);
  }

  /** Indexes document `id` (one already indexed is left as it is). */
  add(id: number, document: Readonly<Record<F, string>>): void {
    if (this.slotOfId.has(id)) return;
    const slot = this.idOfSlot.length;
    this.idOfSlot.push(id);
    this.alive.push(true);
    this.slotOfId.set(id, slot);
    const { fields } = this.options;
    for (let field = 0; field < fields.length; field += 1) {
      const words = document[fields[field]!].split(SPACE_OR_PUNCTUATION);
      const length = new Set(words).size;
      this.lengths[field]!.push(length);
      this.totalLength[field]! += length;
      for (const word of words) {
        const term = this.documentTerm(word);
        if (term !== null) this.count(term, field, slot);
      }
    }
  }

  /** Takes document `id` out of the index; false when it was not in it. */
  remove(id: number): boolean {
    const slot = this.slotOfId.get(id);
    if (slot === undefined) return false;
    this.slotOfId.delete(id);
    this.alive[slot] = false;
    for (let field = 0; field < this.lengths.length; field += 1)
      this.totalLength[field]! -= this.lengths[field]![slot]!;
    this.dead += 1;
    if (this.dead >= MIN_DEAD_TO_COMPACT && this.dead * 8 >= this.slotOfId.size) this.compact();
    return true;
  }

  /**
   * The best `limit` documents for `query` that `accept` takes, best first (equal scores: the lower id first, the order MiniSearch finds them in): each
   * word of the query adds, in each field holding it, the field's weight times its BM25+ score; the sum is multiplied
   * by how many distinct words matched.
   */
  search(query: string, limit: number, accept?: (id: number) => boolean): ScoredId[] {
    // Each distinct word once, times how often the query says it (MiniSearch adds a repeated word's score again).
    const times = new Map<string, number>();
    for (const word of query.split(SPACE_OR_PUNCTUATION)) {
      const term = word === '' ? null : this.options.queryTerm(word);
      if (term !== null) times.set(term, (times.get(term) ?? 0) + 1);
    }
    if (limit <= 0 || times.size === 0 || this.size === 0) return [];
    this.ensureScratch();
    const { scores, matched, lastWord, alive, boosts } = this;
    const touched: number[] = [];
    const documents = this.size;
    let word = 0;
    for (const [term, repeated] of times) {
      word += 1;
      const byField = this.postings.get(term);
      if (byField === undefined) continue;
      for (let field = 0; field < byField.length; field += 1) {
        const posting = byField[field];
        if (posting === undefined) continue;
        const { slots, counts } = posting;
        const holding = this.dead === 0 ? slots.length : this.liveCount(slots);
        if (holding === 0) continue;
        const idf = Math.log(1 + (documents - holding + 0.5) / (holding + 0.5));
        const weight = repeated * boosts[field]! * idf;
        const lengths = this.lengths[field]!;
        const average = this.totalLength[field]! / documents;
        for (let i = 0; i < slots.length; i += 1) {
          const slot = slots[i]!;
          if (!alive[slot]) continue;
          const count = counts[i]!;
          const norm = BM25.k * (1 - BM25.b + (BM25.b * lengths[slot]!) / average);
          if (matched[slot] === 0) touched.push(slot);
          scores[slot]! += weight * (BM25.d + (count * (BM25.k + 1)) / (count + norm));
          if (lastWord[slot] !== word) {
            lastWord[slot] = word;
            matched[slot]! += 1;
          }
        }
      }
    }
    const best = new TopScores(limit);
    for (const slot of touched) {
      const id = this.idOfSlot[slot]!;
      if (accept === undefined || accept(id)) best.offer(id, scores[slot]! * matched[slot]!);
      scores[slot] = 0;
      matched[slot] = 0;
      lastWord[slot] = 0;
    }
    return best.sorted();
  }

  private documentTerm(word: string): string | null {
    if (word === '') return null;
    let term = this.termCache.get(word);
    if (term === undefined) {
      if (this.termCache.size >= TERM_CACHE) this.termCache.clear();
      term = this.options.documentTerm(word);
      this.termCache.set(word, term);
    }
    return term;
  }

  private count(term: string, field: number, slot: number): void {
    let byField = this.postings.get(term);
    if (byField === undefined) this.postings.set(term, (byField = []));
    let posting = byField[field];
    if (posting === undefined) byField[field] = posting = { slots: [], counts: [] };
    const last = posting.slots.length - 1;
    // A document's words are counted together, so a repeated word finds its own slot last.
    if (last >= 0 && posting.slots[last] === slot) posting.counts[last]! += 1;
    else {
      posting.slots.push(slot);
      posting.counts.push(1);
    }
  }

  private liveCount(slots: readonly number[]): number {
    let live = 0;
    for (const slot of slots) if (this.alive[slot]) live += 1;
    return live;
  }

  private ensureScratch(): void {
    const slots = this.idOfSlot.length;
    if (this.scores.length >= slots) return;
    const capacity = Math.max(1024, slots * 2);
    this.scores = new Float64Array(capacity);
    this.matched = new Uint16Array(capacity);
    this.lastWord = new Int32Array(capacity);
  }

  /** Renumbers the live slots from 0 and drops the dead ones from every posting. */
  private compact(): void {
    const renumbered = new Int32Array(this.idOfSlot.length).fill(-1);
    const idOfSlot: number[] = [];
    for (let slot = 0; slot < this.idOfSlot.length; slot += 1) {
      if (!this.alive[slot]) continue;
      renumbered[slot] = idOfSlot.length;
      idOfSlot.push(this.idOfSlot[slot]!);
    }
    this.lengths = this.lengths.map((lengths) => lengths.filter((_, slot) => this.alive[slot]));
    for (const [term, byField] of this.postings) {
      let kept = 0;
      for (let field = 0; field < byField.length; field += 1) {
        const posting = byField[field];
        if (posting === undefined) continue;
        const slots: number[] = [];
        const counts: number[] = [];
        for (let i = 0; i < posting.slots.length; i += 1) {
          const slot = renumbered[posting.slots[i]!]!;
          if (slot < 0) continue;
          slots.push(slot);
          counts.push(posting.counts[i]!);
        }
        byField[field] = slots.length === 0 ? undefined : { slots, counts };
        kept += slots.length;
      }
      if (kept === 0) this.postings.delete(term);
    }
    this.idOfSlot = idOfSlot;
    this.alive = idOfSlot.map(() => true);
    this.slotOfId.clear();
    idOfSlot.forEach((id, slot) => this.slotOfId.set(id, slot));
    this.dead = 0;
    this.scores = new Float64Array(0);
    this.matched = new Uint16Array(0);
    this.lastWord = new Int32Array(0);
  }
}

/** The best `limit` (id, score) pairs offered, kept in a min-heap: the worst kept is the first to go. */
class TopScores {
  private readonly ids: number[] = [];
  private readonly scores: number[] = [];

  constructor(private readonly limit: number) {}

  offer(id: number, score: number): void {
    if (this.ids.length < this.limit) {
      this.ids.push(id);
      this.scores.push(score);
      this.up(this.ids.length - 1);
    } else if (this.better(id, score, 0)) {
      this.ids[0] = id;
      this.scores[0] = score;
      this.down(0);
    }
  }

  /** The pairs kept, best first. */
  sorted(): ScoredId[] {
    return this.ids.map((id, i) => ({ id, score: this.scores[i]! })).sort((a, b) => b.score - a.score || a.id - b.id);
  }

  /** True when (id, score) ranks above the pair at heap position `i`. */
  private better(id: number, score: number, i: number): boolean {
    const other = this.scores[i]!;
    return score > other || (score === other && id < this.ids[i]!);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.better(this.ids[parent]!, this.scores[parent]!, i)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < this.ids.length && !this.better(this.ids[left]!, this.scores[left]!, worst)) worst = left;
      if (right < this.ids.length && !this.better(this.ids[right]!, this.scores[right]!, worst)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(a: number, b: number): void {
    [this.ids[a], this.ids[b]] = [this.ids[b]!, this.ids[a]!];
    [this.scores[a], this.scores[b]] = [this.scores[b]!, this.scores[a]!];
  }
}
