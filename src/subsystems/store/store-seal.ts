/**
 * Sealing the whole store at boot: with `VIGIL_CHECKPOINT_KEY` every value goes through a `SealedLevel`; a sealed canary
 * in the store's meta says the data dir is sealed and with which key, so a wrong or missing key is refused at boot
 * (STORE_KEY_INVALID, exit 2) and never read as an empty agent.
 */
import { VigilError } from '../../errors.js';
import { CHECKPOINT_KEY_VARIABLE, isSealed, sealedHeader } from '../checkpoint/checkpoint-cipher.js';
import { SealedLevel } from './sealed-level.js';
import { isSealedValue, sealedValueKeyId, ValueCipher } from './value-cipher.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilDb } from './vigil-db.js';

const CANARY_KEY = 'seal';
const CANARY_TEXT = 'vigil sealed store v1';
// Values re-sealed per batch when a key is first set on a data dir that has plain values.
const RESEAL_BATCH = 500;

/** What `sealStore` did, for the boot's log line. */
export interface SealReport {
  /** The key id values are sealed with, or null when the store is plain. */
  keyId: string | null;
  /** Plain values written before the key was set and sealed now (0 on every boot but the first with a key). */
  resealed: number;
}

/** Options for `sealStore`. */
export interface SealStoreOptions {
  /** The sealing database closes `db` when it closes (the runtime opened `db` itself). */
  closeInner: boolean;
  /** Named in error messages. */
  dataDir?: string;
}

/**
 * The database the runtime's stores should use: `db` itself without a key (after checking nothing in it is sealed),
 * else a `SealedLevel` over it. The first boot with a key re-seals every plain value, writes the canary and compacts,
 * so no plaintext is left in LevelDB's files. STORE_KEY_INVALID when the data dir was sealed with another key, or is
 * sealed and no key is set.
 */
export async function sealStore(
  db: VigilDb,
  key: string | undefined,
  options: SealStoreOptions,
): Promise<{ db: VigilDb; report: SealReport }> {
  const where = options.dataDir === undefined ? 'The store' : `The data dir ${options.dataDir}`;
  const meta = db.sublevel<string, Uint8Array>(SUBLEVELS.storeMeta, { valueEncoding: 'view' });
  const canary = await read(() => meta.get(CANARY_KEY), 'read the seal canary');
  if (key === undefined) {
    const sealedWith = canary !== undefined ? (sealedValueKeyId(canary) ?? 'unknown') : await sealedCheckpointKeyId(db);
    if (sealedWith !== undefined) throw keyMissing(where, sealedWith);
    return { db, report: { keyId: null, resealed: 0 } };
  }
  const cipher = new ValueCipher(key);
  if (canary !== undefined) {
    const sealedWith = sealedValueKeyId(canary);
    if (!isSealedValue(canary) || sealedWith === undefined) {
      throw new VigilError(
        'STORE_CORRUPT',
        `${where} has a damaged seal canary (key "!${SUBLEVELS.storeMeta}!${CANARY_KEY}").`,
      );
    }
    if (sealedWith !== cipher.keyId) throw wrongKey(where, sealedWith, cipher.keyId);
    const sealed = await openSealed(db, cipher, options);
    // Authenticates the key itself, not only its id: a forged or damaged canary is refused here, not value by value.
    const text = await read(
      () => sealed.sublevel<string, string>(SUBLEVELS.storeMeta, { valueEncoding: 'utf8' }).get(CANARY_KEY),
      'open the seal canary',
    );
    if (text !== CANARY_TEXT)
      throw new VigilError('STORE_CORRUPT', `${where} has a seal canary that does not read "${CANARY_TEXT}".`);
    return { db: sealed, report: { keyId: cipher.keyId, resealed: 0 } };
  }
  // First boot with this key: checkpoint bodies an older Vigil sealed must be this key's, or the agent is not ours to seal.
  const bodiesKeyId = await sealedCheckpointKeyId(db, cipher.keyId);
  if (bodiesKeyId !== undefined) throw wrongKey(where, bodiesKeyId, cipher.keyId);
  const foreign = await foreignSealedValueKeyId(db, cipher.keyId);
  if (foreign !== undefined) throw wrongKey(where, foreign, cipher.keyId);
  const sealed = await openSealed(db, cipher, options);
  const resealed = await resealPlainValues(db, cipher);
  await read(
    () =>
      writeSyncBatch(sealed, [
        {
          type: 'put',
          sublevel: sealed.sublevel<string, string>(SUBLEVELS.storeMeta, { valueEncoding: 'utf8' }),
          key: CANARY_KEY,
          value: CANARY_TEXT,
        },
      ]),
    'write the seal canary',
  );
  // The plain versions are still in LevelDB's log and tables until compacted away.
  if (resealed > 0) await read(() => sealed.compactAll(), 'compact the re-sealed store');
  return { db: sealed, report: { keyId: cipher.keyId, resealed } };
}

async function openSealed(db: VigilDb, cipher: ValueCipher, options: SealStoreOptions): Promise<SealedLevel> {
  const sealed = new SealedLevel(db, cipher, { closeInner: options.closeInner });
  await read(() => sealed.open(), 'open the sealed store');
  return sealed;
}

/** Seals, in place, every value of `db` not yet sealed (with its own key as AAD); returns how many. */
async function resealPlainValues(db: VigilDb, cipher: ValueCipher): Promise<number> {
  let count = 0;
  let ops: Array<{ type: 'put'; key: Buffer; value: Buffer; keyEncoding: 'buffer'; valueEncoding: 'buffer' }> = [];
  const flush = async () => {
    if (ops.length === 0) return;
    await writeSyncBatch(db, ops as never);
    count += ops.length;
    ops = [];
  };
  await read(async () => {
    for await (const [key, value] of db.iterator<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' })) {
      if (isSealedValue(value)) continue;
      ops.push({ type: 'put', key, value: cipher.seal(key, value), keyEncoding: 'buffer', valueEncoding: 'buffer' });
      if (ops.length >= RESEAL_BATCH) await flush();
    }
    await flush();
  }, 'seal the values written before VIGIL_CHECKPOINT_KEY was set');
  return count;
}

/**
 * The key id of a value sealed with a key other than `keyId`, if any: a first boot with a key that a crash cut short
 * before the canary was written, resumed with another key, must not seal the rest under a second key.
 */
async function foreignSealedValueKeyId(db: VigilDb, keyId: string): Promise<string | undefined> {
  return read(async () => {
    for await (const value of db.values<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' })) {
      if (!isSealedValue(value)) continue;
      const sealedWith = sealedValueKeyId(value) ?? 'unknown';
      if (sealedWith !== keyId) return sealedWith;
    }
    return undefined;
  }, 'read the store before sealing it');
}

/** The key id of a checkpoint body sealed (by checkpoint sealing, before the whole store was) with a key other than `except`. */
async function sealedCheckpointKeyId(db: VigilDb, except?: string): Promise<string | undefined> {
  const bodies = db.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
  return read(async () => {
    for await (const body of bodies.values()) {
      if (!isSealed(body)) continue;
      const keyId = sealedHeader(body).keyId ?? 'unknown';
      if (keyId !== except) return keyId;
    }
    return undefined;
  }, 'read the checkpoint bodies');
}

function keyMissing(where: string, sealedWith: string): VigilError {
  return new VigilError(
    'STORE_KEY_INVALID',
    `${where} is sealed (key id ${sealedWith}) but ${CHECKPOINT_KEY_VARIABLE} is not set: start with the key that sealed it. Nothing was read or changed.`,
    { data: { variable: CHECKPOINT_KEY_VARIABLE, sealedWithKeyId: sealedWith, keyId: null } },
  );
}

function wrongKey(where: string, sealedWith: string, keyId: string): VigilError {
  return new VigilError(
    'STORE_KEY_INVALID',
    `${where} is sealed with another key (key id ${sealedWith}) than ${CHECKPOINT_KEY_VARIABLE} (key id ${keyId}): start with the key that sealed it. Nothing was read or changed.`,
    { data: { variable: CHECKPOINT_KEY_VARIABLE, sealedWithKeyId: sealedWith, keyId } },
  );
}

async function read<T>(fn: () => Promise<T>, what: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toStoreError(err, what);
  }
}
