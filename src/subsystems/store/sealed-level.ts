/**
 * A database in front of the data dir's LevelDB that seals every value before LevelDB sees it and opens it on the way
 * back: whatever a sublevel's encoding (json, utf8, view), its values reach LevelDB's write-ahead log and tables only
 * as ciphertext. Keys pass through as they are (they must hold no user text: see SUBLEVELS).
 */
import { AbstractIterator, AbstractLevel } from 'abstract-level';
import { compactVigilDb, SUBLEVELS, type VigilDb } from './vigil-db.js';
import { COMPRESS_MIN_BYTES, CONVERSATION_COMPRESS_MIN_BYTES } from './value-compression.js';
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
// The inner database's private (implementor) API, called directly on the hot paths: the public methods would run a
// second pass of abstract-level's checks, encodings and events over operations already checked and encoded by this
// one (a sealing layer that sealed nothing, over the public methods, added ~12 % to a checkpoint save). Its arguments
// are what abstract-level hands an implementation.
type Private = {
  _get(key: Encoded, options: object): Promise<Encoded | undefined>;
  _getMany(keys: Encoded[], options: object): Promise<Array<Encoded | undefined>>;
  _put(key: Encoded, value: Buffer, options: object): Promise<void>;
  _del(key: Encoded, options: object): Promise<void>;
  _batch(ops: object[], options: object): Promise<void>;
  _iterator(options: object): InnerIterator;
};
// The inner database, seen through the loose signatures of its public methods.
type Loose = {
  get(key: Encoded, options: object): Promise<Buffer | undefined>;
  getMany(keys: Encoded[], options: object): Promise<Array<Buffer | undefined>>;
  put(key: Encoded, value: Buffer, options: object): Promise<void>;
  del(key: Encoded, options: object): Promise<void>;
  batch(ops: object[], options: object): Promise<void>;
  iterator(options: object): PublicIterator;
  has(key: Encoded, options: object): Promise<boolean>;
  hasMany(keys: Encoded[], options: object): Promise<boolean[]>;
  clear(options: object): Promise<void>;
};
interface PublicIterator {
  next(): Promise<[Encoded, Buffer | undefined] | undefined>;
  nextv(size: number, options?: object): Promise<Array<[Encoded, Buffer | undefined]>>;
  all(options?: object): Promise<Array<[Encoded, Buffer | undefined]>>;
  seek(target: Encoded, options?: object): void;
  close(): Promise<void>;
}
/**
 * An iterator of the inner database made by its private `_iterator`: read through its private methods (no second
 * decoding pass), closed through its public `close()`, which also detaches it from the inner database.
 */
interface InnerIterator {
  _next(): Promise<[Encoded, Encoded | undefined] | undefined>;
  _nextv(size: number, options: object): Promise<Array<[Encoded, Encoded | undefined]>>;
  _all(options: object): Promise<Array<[Encoded, Encoded | undefined]>>;
  _seek(target: Encoded, options: object): void;
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
  readonly #private: Private;
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
    this.#inner = inner;
    this.#private = storesEveryFormat(inner) ? (inner as unknown as Private) : publicAccess(this.#inner);
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
    await this.#private._put(key, this.#seal(key, value), { ...options, valueEncoding: 'buffer' });
  }

  async _get(key: Encoded, options: FormatOptions): Promise<Encoded | undefined> {
    const stored = await this.#private._get(key, { ...options, valueEncoding: 'buffer' });
    return stored === undefined ? undefined : this.#open(key, asBuffer(stored), options.valueEncoding);
  }

  async _getMany(keys: Encoded[], options: FormatOptions): Promise<Array<Encoded | undefined>> {
    const stored = await this.#private._getMany(keys, { ...options, valueEncoding: 'buffer' });
    return stored.map((value, i) =>
      value === undefined ? undefined : this.#open(keys[i]!, asBuffer(value), options.valueEncoding),
    );
  }

  async _has(key: Encoded, options: FormatOptions): Promise<boolean> {
    return this.#inner.has(key, { keyEncoding: options.keyEncoding });
  }

  async _hasMany(keys: Encoded[], options: FormatOptions): Promise<boolean[]> {
    return this.#inner.hasMany(keys, { keyEncoding: options.keyEncoding });
  }

  async _del(key: Encoded, options: FormatOptions): Promise<void> {
    await this.#private._del(key, options);
  }

  async _batch(operations: PrivateOp[], options: Record<string, unknown>): Promise<void> {
    const ops = operations.map((op) =>
      op.type === 'put'
        ? {
            type: 'put',
            key: op.key,
            keyEncoding: op.keyEncoding,
            value: this.#seal(op.key, op.value!),
            valueEncoding: 'buffer',
          }
        : { type: 'del', key: op.key, keyEncoding: op.keyEncoding },
    );
    // Only the batch-wide options (e.g. classic-level's `sync`); each op carries its own encodings.
    const { keyEncoding: _k, valueEncoding: _v, ...batchOptions } = options;
    await this.#private._batch(ops, batchOptions);
  }

  async _clear(options: RangeOptions): Promise<void> {
    await this.#inner.clear(pickRange(options));
  }

  _iterator(options: RangeOptions): SealedIterator {
    const wantValues = options.values !== false;
    // Keys are always read: each value is authenticated against the key it is stored under.
    const inner = this.#private._iterator({
      ...pickRange(options),
      keys: true,
      values: wantValues,
      valueEncoding: 'buffer',
    });
    return new SealedIterator(
      this,
      options,
      inner,
      (key, value) => (value === undefined ? undefined : this.#open(key, asBuffer(value), options.valueEncoding)),
      options.keys !== false,
    );
  }

  #seal(key: Encoded, value: Encoded): Buffer {
    const storeKey = bytesOf(key);
    return this.#cipher.seal(
      storeKey,
      bytesOf(value),
      isConversationKey(storeKey) ? CONVERSATION_COMPRESS_MIN_BYTES : COMPRESS_MIN_BYTES,
    );
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
  readonly #open: (key: Encoded, value: Encoded | undefined) => Encoded | undefined;
  readonly #keys: boolean;

  constructor(
    db: SealedLevel,
    options: RangeOptions,
    inner: InnerIterator,
    open: (key: Encoded, value: Encoded | undefined) => Encoded | undefined,
    keys: boolean,
  ) {
    super(db, options);
    this.#inner = inner;
    this.#open = open;
    this.#keys = keys;
  }

  async _next(): Promise<Entry | undefined> {
    const entry = await this.#inner._next();
    return entry === undefined ? undefined : this.#map(entry);
  }

  async _nextv(size: number, options: object): Promise<Entry[]> {
    return (await this.#inner._nextv(size, options)).map((entry) => this.#map(entry));
  }

  async _all(options: object): Promise<Entry[]> {
    return (await this.#inner._all(options)).map((entry) => this.#map(entry));
  }

  _seek(target: Encoded, options: object): void {
    this.#inner._seek(target, options);
  }

  async _close(): Promise<void> {
    await this.#inner.close();
  }

  #map(entry: [Encoded, Encoded | undefined]): Entry {
    return [this.#keys ? entry[0] : undefined, this.#open(entry[0], entry[1])];
  }
}

/** True when `db` stores utf8, buffer and view data as they are (classic-level), so its private API takes them unchanged. */
function storesEveryFormat(db: VigilDb): boolean {
  // An encoding's format is what the implementation is handed: a transcoded one names the store's format instead.
  const native = (format: Format) =>
    db.keyEncoding(format).format === format && db.valueEncoding(format).format === format;
  return native('utf8') && native('buffer') && native('view');
}

/**
 * The private API's shape over the public methods, for an inner database that transcodes some formats (memory-level
 * keeps one store encoding): there, only the public methods convert a utf8 key to what it stores.
 */
function publicAccess(inner: Loose): Private {
  return {
    _get: (key, options) => inner.get(key, options),
    _getMany: (keys, options) => inner.getMany(keys, options),
    _put: (key, value, options) => inner.put(key, value, options),
    _del: (key, options) => inner.del(key, options),
    _batch: (ops, options) => inner.batch(ops, options),
    _iterator: (options) => {
      const it = inner.iterator(options);
      return {
        _next: () => it.next(),
        _nextv: (size, o) => it.nextv(size, o),
        _all: (o) => it.all(o),
        _seek: (target, o) => it.seek(target, o),
        close: () => it.close(),
      };
    },
  };
}

function pickRange(options: RangeOptions): Record<string, unknown> {
  const range: Record<string, unknown> = { keyEncoding: options.keyEncoding };
  for (const name of RANGE_KEYS) if (options[name] !== undefined) range[name] = options[name];
  return range;
}

// A private `_get` answers in the format asked for ('buffer'): a Buffer from classic-level, a Uint8Array view from others.
function asBuffer(value: Encoded): Buffer {
  if (Buffer.isBuffer(value)) return value;
  return typeof value === 'string'
    ? Buffer.from(value, 'utf8')
    : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

const CONVERSATION_PREFIXES = [`!${SUBLEVELS.conversation}!`, `!${SUBLEVELS.conversationArchive}!`].map((prefix) =>
  Buffer.from(prefix),
);

/** True for a key of the conversation log or its archive (compressed from a smaller size: see value-compression.ts). */
function isConversationKey(storeKey: Uint8Array): boolean {
  return CONVERSATION_PREFIXES.some(
    (prefix) =>
      storeKey.byteLength > prefix.length && Buffer.compare(prefix, storeKey.subarray(0, prefix.length)) === 0,
  );
}

function bytesOf(encoded: Encoded): Uint8Array {
  return typeof encoded === 'string' ? Buffer.from(encoded, 'utf8') : encoded;
}
