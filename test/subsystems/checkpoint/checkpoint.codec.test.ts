/** The checkpoint codec: gzip JSON through async zlib, with every decode failure named and coded. */
import zlib from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint } from '../../../src/subsystems/checkpoint/checkpoint.codec.js';
import { makeCheckpoint } from '../../fixtures/checkpoint.fixture.js';

describe('checkpoint codec', () => {
  it('round-trips a checkpoint through gzip JSON', async () => {
    const cp = makeCheckpoint();
    const bytes = await encodeCheckpoint(cp);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    expect(await decodeCheckpoint(bytes)).toEqual(cp);
  });

  it('never uses the blocking zlib calls', async () => {
    const gzipSync = vi.spyOn(zlib, 'gzipSync');
    const gunzipSync = vi.spyOn(zlib, 'gunzipSync');
    await decodeCheckpoint(await encodeCheckpoint(makeCheckpoint()));
    expect(gzipSync).not.toHaveBeenCalled();
    expect(gunzipSync).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it('names the failing step in CHECKPOINT_CORRUPT errors', async () => {
    await expect(decodeCheckpoint(new Uint8Array([1, 2, 3]))).rejects.toMatchObject({
      code: 'CHECKPOINT_CORRUPT',
      message: expect.stringMatching(/^The checkpoint failed to decompress: /),
    });
    await expect(decodeCheckpoint(zlib.gzipSync('nope'), undefined, 'Checkpoint ck-1')).rejects.toMatchObject({
      code: 'CHECKPOINT_CORRUPT',
      message: expect.stringMatching(/^Checkpoint ck-1 is not valid JSON: /),
    });
    const invalid = zlib.gzipSync(JSON.stringify({ ...makeCheckpoint(), heartbeat: { phase: 'napping' } }));
    await expect(decodeCheckpoint(invalid)).rejects.toMatchObject({
      code: 'CHECKPOINT_CORRUPT',
      message: expect.stringMatching(/does not match the checkpoint schema: heartbeat\./),
    });
  });

  it('turns a throwing migrator into CHECKPOINT_CORRUPT', async () => {
    const bytes = await encodeCheckpoint(makeCheckpoint());
    const migrate = () => {
      throw new TypeError('boom');
    };
    await expect(decodeCheckpoint(bytes, migrate)).rejects.toMatchObject({
      code: 'CHECKPOINT_CORRUPT',
      message: expect.stringMatching(/failed to migrate: boom/),
    });
  });
});
