/**
 * A database in front of the data dir's LevelDB that seals every value before LevelDB sees it and opens it on the way
 * back: whatever a sublevel's encoding (json, utf8, view), its values reach LevelDB's write-ahead log and tables only
 * as ciphertext. Keys pass through as they are (they must hold no user text: see SUBLEVELS).
 */
import { AbstractIterator, AbstractLevel } from 'abstract-level';
import { compactVigilDb, type VigilDb } from './vigil-db.js';
import { isSealedValue, type ValueCipher } from './value-cipher.js';

type Format = 'utf8' | 'buffer' | 'view';
type Encoded = string | Uint8Array;
type Entry = [Encoded | undefined, Encoded | undefined];
/** The private-API options abstract-level hands an implementation: encodings already reduced to formats. */
interface FormatOptions {
  keyEncoding: Format;
  valueEncoding: Format;
  [option: string]: unknown;
}
interface RangeOptions extends FormatOptions {
  gt?: Encoded;
  gte?: Encoded;
  lt?: Encoded;
  lte?: Encoded;
  reverse?: boolean;
  limit?: number;
  keys?: boolean;
  values?: boolean;
}
interface PrivateOp {
  type: 'put' | 'del';
  key: Encoded;
  value?: Encoded;
  keyEncoding: Format;
  valueEncoding?: Format;
}
// The inner database, seen through the loose signatures of its public methods.
type Loose = {
  get(key: Encoded, options: object): Promise<Buffer | undefined>;
  getMany(keys: Encoded[], options: object): Promise<Array<Buffer | undefined>>;
  put(key: Encoded, value: Buffer, options: object): Promise<void>;
  del(key: Encoded, options: object): Promise<void>;
  has(key: Encoded, options: object): Promise<boolean>;
  hasMany(keys: Encoded[], options: object): Promise<boolean[]>;
  batch(ops: object[], options: object): Promise<void>;
  clear(options: object): Promise<void>;
  iterator(options: object): InnerIterator;
};
interface InnerIterator {
  next(): Promise<[Encoded, Buffer | undefined] | undefined>;
  nextv(size: number, options?: object): Promise<Array<[Encoded, Buffer | undefined]>>;
  all(options?: object): Promise<Array<[Encoded, Buffer | undefined]>>;
  seek(target: Encoded, options?: object): void;
  close(): Promise<void>;
}

const RANGE_KEYS = ['gt', 'gte', 'lt', 'lte', 'reverse', 'limit'] as const;

/** Options for `SealedLevel`. */
export interface SealedLevelOptions {
  /** Close the inner database when this one closes (true when the runtime opened it). */
  closeInner: boolean;
}

/** The sealing database: a `VigilDb` over another `VigilDb` (on-disk `Level` or `MemoryLevel`). */
export class SealedLevel extends AbstractLevel<string | Buffer | Uint8Array, string, string> {
  readonly #inner: Loose;
  readonly #innerDb: VigilDb;
  readonly #cipher: ValueCipher;
  readonly #closeInner: boolean;

  constructor(inner: VigilDb, cipher: ValueCipher, options: SealedLevelOptions) {
    super(
      {
        encodings: { utf8: true, buffer: true, view: true },
        implicitSnapshots: inner.supports.implicitSnapshots,
        explicitSnapshots: false,
        has: inner.supports.has,
        seek: true,
        permanence: inner.supports.permanence,
      },
      {},
    );
    this.#innerDb = inner;
    this.#inner = inner as unknown as Loose;
    this.#cipher = cipher;
    this.#closeInner = options.closeInner;
  }

  /** The id of the key values are sealed with (a fingerprint, safe to log). */
  get keyId(): string {
    return this.#cipher.keyId;
  }

  /**
   * Compacts the whole key range of the inner LevelDB, so overwritten and deleted versions (plaintext from before
   * the key, pruned records) leave the table files; a no-op on a database without `compactRange` (memory-level).
   */
  async compactAll(): Promise<void> {
    await compactVigilDb(this.#innerDb);
  }

  async _open(): Promise<void> {
    if (this.#innerDb.status !== 'open') await this.#innerDb.open();
  }

  async _close(): Promise<void> {
    if (this.#closeInner) await this.#innerDb.close();
  }

  async _put(key: Encoded, value: Encoded, options: FormatOptions): Promise<void> {
    await this.#inner.put(key, this.#seal(key, value), { ...options, valueEncoding: 'buffer' });
  }

  async _get(key: Encoded, options: FormatOptions): Promise<Encoded | undefined> {
    const stored = await this.#inner.get(key, { keyEncoding: options.keyEncoding, valueEncoding: 'buffer' });
    return stored === undefined ? undefined : this.#open(key, stored, options.valueEncoding);
  }

  async _getMany(keys: Encoded[], options: FormatOptions): Promise<Array<Encoded | undefined>> {
    const stored = await this.#inner.getMany(keys, { keyEncoding: options.keyEncoding, valueEncoding: 'buffer' });
    return stored.map((value, i) => (value === undefined ? undefined : this.#open(keys[i]!, value, options.valueEncoding)));
  }

  async _has(key: Encoded, options: FormatOptions): Promise<boolean> {
    return this.#inner.has(key, { keyEncoding: options.keyEncoding });
  }

  async _hasMany(keys: Encoded[], options: FormatOptions): Promise<boolean[]> {
    return this.#inner.hasMany(keys, { keyEncoding: options.keyEncoding });
  }

  async _del(key: Encoded, options: FormatOptions): Promise<void> {
    await this.#inner.del(key, options);
  }

  async _batch(operations: PrivateOp[], options: Record<string, unknown>): Promise<void> {
    const ops = operations.map((op) =>
      op.type === 'put'
        ? { type: 'put', key: op.key, keyEncoding: op.keyEncoding, value: this.#seal(op.key, op.value!), valueEncoding: 'buffer' }
        : { type: 'del', key: op.key, keyEncoding: op.keyEncoding },
    );
    // Only the batch-wide options (e.g. classic-level's `sync`); each op carries its own encodings.
    const { keyEncoding: _k, valueEncoding: _v, ...batchOptions } = options;
    await this.#inner.batch(ops, batchOptions);
  }

  async _clear(options: RangeOptions): Promise<void> {
    await this.#inner.clear(pickRange(options));
  }

  _iterator(options: RangeOptions): SealedIterator {
    const wantValues = options.values !== false;
    // Keys are always read: each value is authenticated against the key it is stored under.
    const inner = this.#inner.iterator({ ...pickRange(options), keys: true, values: wantValues, valueEncoding: 'buffer' });
    return new SealedIterator(this, options, inner, (key, value) => (value === undefined ? undefined : this.#open(key, value, options.valueEncoding)), options.keys !== false);
  }

  #seal(key: Encoded, value: Encoded): Buffer {
    return this.#cipher.seal(bytesOf(key), bytesOf(value));
  }

  #open(key: Encoded, stored: Buffer, format: Format): Encoded {
    // Written before the key was set: read as it is (the boot re-seals every such value, see store-seal.ts).
    const plain = isSealedValue(stored) ? this.#cipher.open(bytesOf(key), stored) : stored;
    return format === 'utf8' ? plain.toString('utf8') : plain;
  }
}

/** An iterator of the sealing database: the inner iterator's entries, values opened. */
class SealedIterator extends AbstractIterator<SealedLevel, Encoded, Encoded> {
  readonly #inner: InnerIterator;
  readonly #open: (key: Encoded, value: Buffer | undefined) => Encoded | undefined;
  readonly #keys: boolean;

  constructor(
    db: SealedLevel,
    options: RangeOptions,
    inner: InnerIterator,
    open: (key: Encoded, value: Buffer | undefined) => Encoded | undefined,
    keys: boolean,
  ) {
    super(db, options as never);
    this.#inner = inner;
    this.#open = open;
    this.#keys = keys;
  }

  async _next(): Promise<Entry | undefined> {
    const entry = await this.#inner.next();
    return entry === undefined ? undefined : this.#map(entry);
  }

  async _nextv(size: number, options: object): Promise<Entry[]> {
    return (await this.#inner.nextv(size, options)).map((entry) => this.#map(entry));
  }

  async _all(options: object): Promise<Entry[]> {
    return (await this.#inner.all(options)).map((entry) => this.#map(entry));
  }

  _seek(target: Encoded, options: object): void {
    this.#inner.seek(target, options);
  }

  async _close(): Promise<void> {
    await this.#inner.close();
  }

  #map(entry: [Encoded, Buffer | undefined]): Entry {
    return [this.#keys ? entry[0] : undefined, this.#open(entry[0], entry[1])];
  }
}

function pickRange(options: RangeOptions): Record<string, unknown> {
  const range: Record<string, unknown> = { keyEncoding: options.keyEncoding };
  for (const name of RANGE_KEYS) if (options[name] !== undefined) range[name] = options[name];
  return range;
}

function bytesOf(encoded: Encoded): Uint8Array {
  return typeof encoded === 'string' ? Buffer.from(encoded, 'utf8') : encoded;
}
