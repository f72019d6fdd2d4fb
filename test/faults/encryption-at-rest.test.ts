/**
 * Encryption at rest (VIGIL_CHECKPOINT_KEY): checkpoint bodies sealed with AES-256-GCM, the id bound as AAD; in the
 * checkpoint store a wrong or missing key is CHECKPOINT_KEY_INVALID, skipped as corrupt and never the cause of lost
 * history; a runtime on a sealed data dir refuses to boot under another key or none (STORE_KEY_INVALID, exit 2); every
 * stored value is sealed, so no text of the agent's reaches a file; export files hold the plaintext checkpoint, so an
 * agent moves between stores with different keys or none.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { runDaemon } from '../../src/daemon.js';
import { isVigilError, type VigilError } from '../../src/errors.js';
import { exportCheckpoint, importCheckpoint, type TransferStores } from '../../src/runtime/checkpoint-transfer.js';
import { CheckpointExportSchema } from '../../src/protocol/checkpoint-transfer.schema.js';
import { logWarningEvents } from '../../src/runtime/event-log.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { isSealed, keyIdOf, sealedHeader } from '../../src/subsystems/checkpoint/checkpoint-cipher.js';
import { CheckpointManager } from '../../src/subsystems/checkpoint/checkpoint.manager.js';
import type { CognitiveCheckpoint } from '../../src/protocol/checkpoint-format.schema.js';
import { CheckpointStore } from '../../src/subsystems/checkpoint/checkpoint.store.js';
import { ConversationLog } from '../../src/subsystems/conversation/conversation-log.js';
import { EventBus } from '../../src/events/event-bus.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { openVigilDb, SUBLEVELS, type VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { sealStore } from '../../src/subsystems/store/store-seal.js';
import { isSealedValue } from '../../src/subsystems/store/value-cipher.js';
import { makeCheckpoint } from '../fixtures/checkpoint.fixture.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';
import { LEVELS, recordingLogger } from './recording-logger.js';

const KEY_A = 'a1'.repeat(32); // 64 hex characters
const KEY_B = Buffer.alloc(32, 0xb2).toString('base64'); // 44 base64 characters
const KEY_ID_A = keyIdOf(Buffer.from(KEY_A, 'hex')).toString('hex');
const KEY_ID_B = keyIdOf(Buffer.from(KEY_B, 'base64')).toString('hex');
const MARKERS = ['Keep the lighthouse lit 4417', 'The harbour code is 9931', 'Are you there, keeper?'];

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-crypt-'));
  dirs.push(dir);
  return dir;
}

/** Every byte of every file under `dir`. */
async function allBytes(dir: string): Promise<Buffer> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  return Buffer.concat(await Promise.all(files.map((file) => readFile(join(file.parentPath, file.name)))));
}

function bodiesOf(db: VigilDb) {
  return db.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
}

/** A checkpoint holding the three marker strings: a goal title, a memory item and a pending message. */
function secretCheckpoint(id: string, at: number): CognitiveCheckpoint {
  const base = makeCheckpoint();
  return makeCheckpoint({
    id,
    createdAt: at,
    actors: {
      ...base.actors,
      goals: { goals: [{ ...base.actors.goals.goals[0]!, title: MARKERS[0]! }] },
      workingMemory: {
        ...base.actors.workingMemory,
        items: [{ ...base.actors.workingMemory.items[0]!, content: MARKERS[1]! }],
      },
    },
    conversation: { ...base.conversation, pending: [{ ...base.conversation.pending[0]!, text: MARKERS[2]! }] },
  });
}

/** A store on `db` with `key` (none: unencrypted), and `save(n, maxCount)` adding checkpoints a second apart. */
async function storeOn(
  db: VigilDb,
  key: string | undefined,
  clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z')),
) {
  const store = new CheckpointStore(db, clock, { key });
  await store.open();
  const save = async (n: number, maxCount = 10): Promise<CognitiveCheckpoint[]> => {
    const saved: CognitiveCheckpoint[] = [];
    for (let i = 0; i < n; i += 1) {
      clock.increment(1000);
      const cp = secretCheckpoint(store.newId(), clock.now());
      await store.save(cp, maxCount);
      saved.push(cp);
    }
    return saved;
  };
  return { store, save, clock };
}

/** What a boot sees: the manager's newest valid checkpoint, the checkpoint.corrupt events and the warn lines. */
async function boot(store: CheckpointStore) {
  const clock = createSimulatedClock();
  const bus = new EventBus({ clock, currentBeat: () => 0 });
  const { log, records } = recordingLogger();
  logWarningEvents(bus, log);
  const events: VigilEvent[] = [];
  bus.events$.subscribe((event) => events.push(event));
  const restored = await new CheckpointManager(store, bus, {
    enabled: true,
    intervalBeats: 5,
    maxCount: 10,
  }).loadNewestValid();
  const corrupt = events.filter(
    (e): e is Extract<VigilEvent, { type: 'checkpoint.corrupt' }> => e.type === 'checkpoint.corrupt',
  );
  return { restored, corrupt, records };
}

async function caught(promise: Promise<unknown>): Promise<VigilError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isVigilError(err)) throw new Error(`expected a VigilError, got ${String(err)}`);
  return err;
}

describe('encryption at rest: the checkpoint store', () => {
  it('seals every body: no file of the on-disk store holds a goal title, memory item or message of a checkpoint', async () => {
    const dir = await tempDir();
    const db = new Level<string, string>(dir) as unknown as VigilDb;
    await db.open();
    const { store, save } = await storeOn(db, KEY_A);
    const saved = await save(3);
    for (const cp of saved) {
      const { bytes } = await store.loadRaw(cp.id);
      expect(isSealed(bytes)).toBe(true);
      expect(sealedHeader(bytes).keyId).toBe(KEY_ID_A);
      expect(() => gunzipSync(bytes)).toThrow();
    }
    await db.close();
    const disk = await allBytes(dir);
    // The scan does see what is stored in the clear (ids are keys and index values), so its silence means something.
    expect(disk.includes(Buffer.from(saved[0]!.id))).toBe(true);
    for (const marker of MARKERS) expect(disk.includes(Buffer.from(marker)), marker).toBe(false);

    const reopened = new Level<string, string>(dir) as unknown as VigilDb;
    await reopened.open();
    const again = await storeOn(reopened, KEY_A);
    expect(await again.store.load(saved[2]!.id)).toEqual(saved[2]);
    await reopened.close();
  });

  it('gives CHECKPOINT_KEY_INVALID (-32005) naming VIGIL_CHECKPOINT_KEY for a wrong or missing key; a boot skips each as corrupt, with a warning', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const a = await storeOn(db, KEY_A);
    const saved = await a.save(3);

    const wrong = await caught((await storeOn(db, KEY_B)).store.load(saved[2]!.id));
    expect(wrong.code).toBe('CHECKPOINT_KEY_INVALID');
    expect(wrong.message).toMatch(
      new RegExp(`sealed with another key \\(key id ${KEY_ID_A}\\) than VIGIL_CHECKPOINT_KEY \\(key id ${KEY_ID_B}\\)`),
    );
    expect(wrong.toJsonRpc()).toMatchObject({
      code: -32005,
      data: { vigilCode: 'CHECKPOINT_KEY_INVALID', variable: 'VIGIL_CHECKPOINT_KEY' },
    });
    const missing = await caught((await storeOn(db, undefined)).store.load(saved[2]!.id));
    expect(missing.code).toBe('CHECKPOINT_KEY_INVALID');
    expect(missing.message).toMatch(/is encrypted .* but VIGIL_CHECKPOINT_KEY is not set/);

    for (const key of [KEY_B, undefined]) {
      const { restored, corrupt, records } = await boot((await storeOn(db, key)).store);
      expect(restored).toBeNull();
      expect(corrupt.map((e) => e.checkpointId)).toEqual(saved.map((cp) => cp.id).reverse());
      for (const event of corrupt) expect(event.reason).toMatch(/VIGIL_CHECKPOINT_KEY/);
      expect(records.filter((r) => r.msg === 'checkpoint.corrupt' && r.level === LEVELS.warn)).toHaveLength(3);
    }
    expect((await boot(a.store)).restored).toEqual(saved[2]);
  });

  it('never prunes checkpoints sealed with a key it does not hold, so a daemon started with a wrong key or none loses no history', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const a = await storeOn(db, KEY_A);
    const history = await a.save(3, 3);
    // A cold-started daemon with the wrong key, then one with none, each saving well past VIGIL_CHECKPOINT_MAX_COUNT.
    const b = await storeOn(db, KEY_B, a.clock);
    const bSaved = await b.save(5, 2);
    const plain = await storeOn(db, undefined, a.clock);
    const plainSaved = await plain.save(5, 2);
    const ids = (await a.store.list()).map((m) => m.id);
    for (const cp of history) expect(ids).toContain(cp.id);
    // The other keys' own checkpoints were pruned as usual: B's are unreadable to the plain store, so they stay;
    // the plain store's are prunable by anyone and kept to its newest two.
    expect(ids.filter((id) => bSaved.some((cp) => cp.id === id))).toHaveLength(2);
    expect(ids.filter((id) => plainSaved.some((cp) => cp.id === id))).toEqual(
      plainSaved
        .slice(-2)
        .map((cp) => cp.id)
        .reverse(),
    );
    // With the right key again, the newest readable checkpoint is the plain store's (plain bodies are always read)…
    const { restored, corrupt } = await boot(a.store);
    expect(restored).toEqual(plainSaved[4]);
    expect(corrupt).toHaveLength(0);
    // …and the sealed history is all there, readable.
    for (const cp of history) expect(await a.store.load(cp.id)).toEqual(cp);
  });

  it('reads plain bodies written before a key was set and seals from then on, so turning encryption on keeps the agent', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const plain = await storeOn(db, undefined);
    const before = await plain.save(2);
    const keyed = await storeOn(db, KEY_A, plain.clock);
    expect((await boot(keyed.store)).restored).toEqual(before[1]);
    const [after] = await keyed.save(1, 2);
    expect(isSealed((await keyed.store.loadRaw(after!.id)).bytes)).toBe(true);
    expect(isSealed((await keyed.store.loadRaw(before[1]!.id)).bytes)).toBe(false);
    // Plain bodies are pruned like any other.
    expect((await keyed.store.list()).map((m) => m.id)).toEqual([after!.id, before[1]!.id]);
  });

  it('refuses a swapped, bit-flipped or truncated sealed body as CHECKPOINT_CORRUPT and restores the next older one', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const { store, save } = await storeOn(db, KEY_A);
    const [first, second, third] = await save(3);
    const bodies = bodiesOf(db);
    // The third id now holds the second's sealed body: same key, valid tag, but bound to another id.
    await bodies.put(third!.id, (await bodies.get(second!.id))!);
    const swapped = await caught(store.load(third!.id));
    expect(swapped.code).toBe('CHECKPOINT_CORRUPT');
    expect(swapped.message).toMatch(/failed authentication .* moved from another checkpoint/);
    const flipped = Uint8Array.from((await bodies.get(second!.id))!);
    flipped[flipped.length - 20] = flipped[flipped.length - 20]! ^ 0x40;
    await bodies.put(second!.id, flipped);
    const firstBytes = (await bodies.get(first!.id))!;
    let { restored, corrupt } = await boot(store);
    expect(restored).toEqual(first);
    expect(corrupt.map((e) => e.checkpointId)).toEqual([third!.id, second!.id]);
    await bodies.put(first!.id, firstBytes.slice(0, firstBytes.length - 5));
    ({ restored, corrupt } = await boot(store));
    expect(restored).toBeNull();
    expect(corrupt.map((e) => e.reason)).toEqual([
      expect.stringMatching(/failed authentication/),
      expect.stringMatching(/failed authentication/),
      expect.stringMatching(/failed authentication/),
    ]);
  });
});

describe('encryption at rest: export and import', () => {
  /** Export/import stores over `db`: a store with `key` and a conversation log holding `messages` messages. */
  async function stores(db: VigilDb, key: string | undefined, messages: number): Promise<TransferStores> {
    const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
    const store = new CheckpointStore(db, clock, { key });
    await store.open();
    const conversation = new ConversationLog(db);
    await conversation.open();
    for (let i = 0; i < messages; i += 1) {
      await conversation.append({
        turnId: `t-${i}`,
        role: 'user',
        text: `message ${i} of ${key ?? 'plain'}`,
        at: clock.now(),
      });
    }
    return { store, conversation, clock, log: silentLogger };
  }

  it('exports the plaintext checkpoint from an encrypted store and imports it into a store with another key and into a plain one', async () => {
    const source = await stores(new MemoryLevel(), KEY_A, 3);
    const cp = secretCheckpoint(source.store.newId(), Date.parse('2026-03-01T10:00:05Z'));
    await source.store.save(cp, 10);
    // Through JSON, as the file on disk: the checkpoint travels decrypted, so any key (or none) can take it in.
    const document = CheckpointExportSchema.parse(JSON.parse(JSON.stringify(await exportCheckpoint(source, cp.id))));
    expect(document.checkpoint).toEqual(cp);
    expect(document.messages.map((m) => m.text)).toEqual([
      'message 0 of ' + KEY_A,
      'message 1 of ' + KEY_A,
      'message 2 of ' + KEY_A,
    ]);

    const otherDb = new MemoryLevel() as unknown as VigilDb;
    const other = await stores(otherDb, KEY_B, 2);
    const intoB = await importCheckpoint(other, document);
    const storedB = await other.store.loadRaw(intoB.id);
    expect(sealedHeader(storedB.bytes).keyId).toBe(KEY_ID_B);
    expect(storedB.meta.sizeBytes).toBe(storedB.bytes.byteLength);
    const loadedB = await other.store.load(intoB.id);
    expect({ ...loadedB, id: cp.id, conversation: { ...loadedB.conversation, watermark: 3 } }).toEqual(cp);
    expect(loadedB.conversation.watermark).toBe(5);
    // Sealed for B alone: A's key cannot open what the import wrote.
    expect((await caught(new CheckpointStore(otherDb, other.clock, { key: KEY_A }).load(intoB.id))).code).toBe(
      'CHECKPOINT_KEY_INVALID',
    );

    const plain = await stores(new MemoryLevel(), undefined, 0);
    const intoPlain = await importCheckpoint(plain, document);
    const storedPlain = await plain.store.loadRaw(intoPlain.id);
    expect(isSealed(storedPlain.bytes)).toBe(false);
    expect([storedPlain.bytes[0], storedPlain.bytes[1]]).toEqual([0x1f, 0x8b]);
    expect((await plain.store.load(intoPlain.id)).actors).toEqual(cp.actors);
  });
});

describe('encryption at rest: configuration', () => {
  it('takes VIGIL_CHECKPOINT_KEY as 64 hex characters or base64, and leaves it unset by default', () => {
    expect(loadConfig({}).checkpointKey).toBeUndefined();
    expect(loadConfig({ VIGIL_CHECKPOINT_KEY: KEY_A }).checkpointKey).toBe(KEY_A);
    expect(loadConfig({ VIGIL_CHECKPOINT_KEY: KEY_B }).checkpointKey).toBe(KEY_B);
  });

  it('exits 2 on an invalid key, naming VIGIL_CHECKPOINT_KEY and its length but never its value', async () => {
    const dataDir = join(await tempDir(), 'never-created');
    const lines: string[] = [];
    const secret = 'my-secret-passphrase';
    const code = await runDaemon([], {
      env: { VIGIL_CHECKPOINT_KEY: secret, VIGIL_DATA_DIR: dataDir },
      stderr: (line) => lines.push(line),
    });
    expect(code).toBe(2);
    expect(lines.join('\n')).toMatch(
      /VIGIL_CHECKPOINT_KEY="<hidden, 20 characters>" is invalid: expected 32 random bytes as 64 hex characters or as base64/,
    );
    expect(lines.join('\n')).not.toContain(secret);
    await expect(readdir(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

/** Advances simulated time in 100 ms steps; a beat waiting on the disk (sync writes) is let finish in real time first. */
async function runFor(h: RuntimeHarness, ms: number): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += 100) {
    await h.advance(100, 100);
    const deadline = Date.now() + 10_000;
    while (h.runtime.status().phase !== 'sleep') {
      if (Date.now() > deadline)
        throw new Error(`the beat was still in ${h.runtime.status().phase} after 10 s of real time`);
      await new Promise((resolve) => setTimeout(resolve, 2));
      await h.settle();
    }
  }
}

describe('encryption at rest: a runtime with VIGIL_CHECKPOINT_KEY', () => {
  it('seals the checkpoints it takes: createRuntime hands config.checkpointKey to its store', async () => {
    const h = await startRuntime({ config: { checkpointKey: KEY_A } });
    try {
      const created = h.runtime.createCheckpoint();
      await h.advance(1000);
      const { id } = await created;
      // Read below the sealing layer: a body is sealed as a checkpoint, and that again as a stored value.
      const { db: sealed } = await sealStore(h.db, KEY_A, { closeInner: false });
      const store = new CheckpointStore(sealed, h.clock, { key: KEY_A });
      await store.open();
      expect(isSealed((await store.loadRaw(id)).bytes)).toBe(true);
      expect(isSealedValue((await bodiesOf(h.db).get(id))!)).toBe(true);
    } finally {
      await h.runtime.stop();
    }
  });

  it('keeps what the agent remembered out of every file of its data dir', async () => {
    const dir = await tempDir();
    const db = await openVigilDb(dir);
    const thinker = new ScriptedThinker((input) =>
      input.pendingMessages.flatMap((m) => [
        { type: 'remember' as const, content: MARKERS[1]!, salience: 0.9 },
        { type: 'reply' as const, turnId: m.turnId, text: 'Noted.' },
      ]),
    );
    const h = await startRuntime({ db, thinker, config: { checkpointKey: KEY_A } });
    await h.runtime.send({ text: 'remember the code' });
    await runFor(h, 12_000);
    expect(h.runtime.listMemory().map((m) => m.content)).toContain(MARKERS[1]);
    expect(h.ofType('checkpoint.created').length).toBeGreaterThanOrEqual(2);
    await h.stop();
    await db.close();
    const disk = await allBytes(dir);
    // The scan sees what is in the clear (sublevel names are keys), so its silence about the texts means something.
    expect(disk.includes(Buffer.from(`!${SUBLEVELS.conversation}!`))).toBe(true);
    expect(disk.includes(Buffer.from('remember the code'))).toBe(false);
    expect(disk.includes(Buffer.from(MARKERS[1]!))).toBe(false);
  });

  // The event journal holds `goal.added` with the title: every value of the store is sealed, the journal's too.
  it('keeps goal titles out of every file of its data dir', async () => {
    const dir = await tempDir();
    const db = await openVigilDb(dir);
    const h = await startRuntime({ db, config: { checkpointKey: KEY_A } });
    h.runtime.addGoal({ title: MARKERS[0]!, priority: 5 });
    await runFor(h, 6000);
    await h.stop();
    await db.close();
    expect((await allBytes(dir)).includes(Buffer.from(MARKERS[0]!))).toBe(false);
  });

  it('refuses to boot under another key or none (STORE_KEY_INVALID, nothing written), and the right key brings the agent back', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const first = await startRuntime({ db, config: { checkpointKey: KEY_A } });
    first.runtime.addGoal({ title: MARKERS[0]!, priority: 5 });
    await first.advance(6000);
    await first.stop();
    const newestA = (await first.runtime.listCheckpoints({ limit: 1 }))[0]!.id;
    const before = await db.iterator({ valueEncoding: 'view' }).all();

    for (const key of [KEY_B, undefined]) {
      const err = await caught(startRuntime({ db, clock: first.clock, config: { checkpointKey: key } }));
      expect(err.code).toBe('STORE_KEY_INVALID');
      expect(err.message).toMatch(
        key === undefined
          ? /is sealed \(key id [0-9a-f]{8}\) but VIGIL_CHECKPOINT_KEY is not set/
          : /sealed with another key .* than VIGIL_CHECKPOINT_KEY/,
      );
    }
    // Not a cold start that goes on to checkpoint over the agent: the store is as the first run left it.
    expect(await db.iterator({ valueEncoding: 'view' }).all()).toEqual(before);

    const right = await startRuntime({ db, clock: first.clock, config: { checkpointKey: KEY_A } });
    expect(right.runtime.status().restoredFrom).toBe(newestA);
    expect(right.runtime.listGoals().map((g) => g.title)).toEqual([MARKERS[0]]);
    await right.stop();
  });

  it('exits 2 naming VIGIL_CHECKPOINT_KEY when the data dir is sealed with another key', async () => {
    const dataDir = await tempDir();
    const db = await openVigilDb(dataDir);
    await sealStore(db, KEY_A, { closeInner: false });
    await db.close();
    const lines: string[] = [];
    const code = await runDaemon([], {
      env: { VIGIL_CHECKPOINT_KEY: KEY_B, VIGIL_DATA_DIR: dataDir, VIGIL_LOG_LEVEL: 'silent' },
      stderr: (line) => lines.push(line),
    });
    expect(code).toBe(2);
    expect(lines.join('\n')).toMatch(
      new RegExp(
        `is sealed with another key \\(key id ${KEY_ID_A}\\) than VIGIL_CHECKPOINT_KEY \\(key id ${KEY_ID_B}\\)`,
      ),
    );
  });
});
