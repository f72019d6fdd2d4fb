/**
 * The vectors of one corpus in RAM, for brute-force nearest-neighbour search: one contiguous Float32Array of rows (a
 * row per record, all of one length), so a scan reads memory in order and holds no object per vector. Measured three
 * times faster than a Map of per-record arrays, with none of their overhead (docs/guides/memory.md#semantic-search).
 */
import { VigilError } from '../../errors.js';

/** One neighbour: its record seq and its cosine similarity to the query. */
export interface Neighbour {
  seq: number;
  score: number;
}

const INITIAL_ROWS = 64;

/** Unit vectors by record seq. */
export class VectorTable {
  private dims = 0;
  private data = new Float32Array(0);
  /** The seq of each row, rows 0..size-1 in use. */
  private seqs: number[] = [];
  private readonly rowOf = new Map<number, number>();

  /** How many vectors are held. */
  get size(): number {
    return this.seqs.length;
  }

  /** True when record `seq` has a vector. */
  has(seq: number): boolean {
    return this.rowOf.has(seq);
  }

  /** The seqs that have a vector. */
  keys(): IterableIterator<number> {
    return this.rowOf.keys();
  }

  /** Holds `vector` (unit length) for record `seq`; EMBEDDINGS_FAILED when its length is not the table's. */
  set(seq: number, vector: Float32Array): void {
    if (this.dims === 0) this.dims = vector.length;
    if (vector.length !== this.dims) {
      throw new VigilError(
        'EMBEDDINGS_FAILED',
        `An embedding of ${vector.length} dimensions cannot join vectors of ${this.dims}.`,
      );
    }
    let row = this.rowOf.get(seq);
    if (row === undefined) {
      row = this.seqs.length;
      this.grow(row + 1);
      this.seqs.push(seq);
      this.rowOf.set(seq, row);
    }
    this.data.set(vector, row * this.dims);
  }

  /** Drops record `seq`'s vector: the last row moves into its place. */
  delete(seq: number): void {
    const row = this.rowOf.get(seq);
    if (row === undefined) return;
    const last = this.seqs.length - 1;
    const moved = this.seqs[last] as number;
    if (row !== last) {
      this.data.copyWithin(row * this.dims, last * this.dims, (last + 1) * this.dims);
      this.seqs[row] = moved;
      this.rowOf.set(moved, row);
    }
    this.seqs.pop();
    this.rowOf.delete(seq);
  }

  /** Drops every vector. */
  clear(): void {
    this.dims = 0;
    this.data = new Float32Array(0);
    this.seqs = [];
    this.rowOf.clear();
  }

  /**
   * The `k` records nearest `query`, best first: only those with a positive similarity (an orthogonal or opposite
   * vector shares nothing with the query); ties go to the lower seq, so the answer is deterministic. A query of
   * another length finds nothing.
   */
  nearest(query: Float32Array, k: number): Neighbour[] {
    const best: Neighbour[] = [];
    if (this.fits(query, k)) this.scanRows(query, k, 0, this.seqs.length, best);
    return best;
  }

  /**
   * `nearest`, scanning `rowsPerStep` rows at a time with the event loop let run between steps: a scan of 100,000
   * vectors takes tens to hundreds of milliseconds, which a beat must not wait for. A record deleted during the scan
   * may still be among the neighbours (the caller skips what it no longer holds).
   */
  async nearestInSteps(
    query: Float32Array,
    k: number,
    rowsPerStep: number,
    yieldStep: () => Promise<void>,
    accept?: (seq: number) => boolean,
  ): Promise<Neighbour[]> {
    const best: Neighbour[] = [];
    if (!this.fits(query, k)) return best;
    for (let start = 0; start < this.seqs.length; start += rowsPerStep) {
      if (start > 0) await yieldStep();
      // Rows may have moved or gone meanwhile (a delete swaps the last row in): each step reads the table as it is.
      this.scanRows(query, k, start, Math.min(this.seqs.length, start + rowsPerStep), best, accept);
    }
    return best;
  }

  private fits(query: Float32Array, k: number): boolean {
    return k > 0 && this.dims > 0 && query.length === this.dims;
  }

  /** Scores rows `from`..`to`-1 against `query` into `best` (kept sorted best first, at most `k`). */
  private scanRows(
    query: Float32Array,
    k: number,
    from: number,
    to: number,
    best: Neighbour[],
    accept?: (seq: number) => boolean,
  ): void {
    const { dims, data, seqs } = this;
    for (let row = from, offset = from * dims; row < to; row += 1, offset += dims) {
      let score = 0;
      for (let d = 0; d < dims; d += 1) score += (query[d] as number) * (data[offset + d] as number);
      if (score <= 0) continue;
      const seq = seqs[row] as number;
      if (best.length === k && !better(score, seq, best[k - 1] as Neighbour)) continue;
      if (accept !== undefined && !accept(seq)) continue;
      // k is small (a page of hits), so an insertion into the sorted list beats a heap.
      let at = best.length;
      while (at > 0 && better(score, seq, best[at - 1] as Neighbour)) at -= 1;
      if (best.some((n) => n.seq === seq)) continue;
      best.splice(at, 0, { seq, score });
      if (best.length > k) best.pop();
    }
  }

  private grow(rows: number): void {
    if (rows * this.dims <= this.data.length) return;
    let capacity = Math.max(INITIAL_ROWS, this.data.length / Math.max(1, this.dims));
    while (capacity < rows) capacity *= 2;
    const next = new Float32Array(capacity * this.dims);
    next.set(this.data);
    this.data = next;
  }
}

function better(score: number, seq: number, than: Neighbour): boolean {
  return score > than.score || (score === than.score && seq < than.seq);
}
