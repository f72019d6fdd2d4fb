/** The OAuth records on disk: written synced, read back by a new store on the same LevelDB, a bad record passed over. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVigilDb, SUBLEVELS, type VigilDb } from '../../../../src/subsystems/store/vigil-db.js';
import { OAuthStore } from '../../../../src/subsystems/tools/oauth/oauth-store.js';

let dir: string | undefined;
let db: VigilDb | undefined;
afterEach(async () => {
  await db?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  db = undefined;
  dir = undefined;
});

async function open(): Promise<VigilDb> {
  dir ??= mkdtempSync(join(tmpdir(), 'vigil-oauth-store-'));
  db = await openVigilDb(dir);
  return db;
}

describe('OAuthStore', () => {
  it('keeps one record per server across a reopen, finds a sign-in by its state, and serialises changes', async () => {
    const store = await OAuthStore.open(await open());
    expect(store.get('tracker')).toEqual({ signIns: [] });
    expect(store.has('tracker')).toBe(false);
    const signIn = { state: 's1', codeVerifier: 'v1', authorizationUrl: 'https://as/a?state=s1', expiresAt: 600_000 };
    // Two changes started together: the second sees the first (read-modify-write never interleaves).
    await Promise.all([
      store.update('tracker', (record) => ({ ...record, signIns: [...record.signIns, signIn] })),
      store.update('tracker', (record) => ({
        ...record,
        tokens: { value: { access_token: 'a', token_type: 'Bearer' }, obtainedAt: 1, expiresAt: 2 },
      })),
    ]);
    expect(store.findSignIn('s1')).toEqual({ server: 'tracker', signIn });
    expect(store.findSignIn('nope')).toBeUndefined();
    await db!.close();

    const reopened = await OAuthStore.open(await open());
    expect(reopened.get('tracker')).toEqual({
      signIns: [signIn],
      tokens: { value: { access_token: 'a', token_type: 'Bearer' }, obtainedAt: 1, expiresAt: 2 },
    });
  });

  it('passes over a record that does not parse (that server signs in again)', async () => {
    const database = await open();
    await database
      .sublevel<string, unknown>(SUBLEVELS.mcpOAuth, { valueEncoding: 'json' })
      .put('broken', { signIns: 'no' });
    const store = await OAuthStore.open(database);
    expect(store.has('broken')).toBe(false);
  });
});
