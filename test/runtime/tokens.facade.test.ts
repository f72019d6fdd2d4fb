/** The runtime's tokens area: records survive a restart, last use is written at most once a minute, expiry is on the clock. */
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { LAST_USED_WRITE_EVERY_MS } from '../../src/runtime/facade/tokens.facade.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { useRuntimes } from '../fixtures/runtime.fixture.js';

const start = useRuntimes();

describe('the tokens facade', () => {
  it('keeps tokens across a restart, authenticating the same secret with the same scope', async () => {
    const db: VigilDb = new MemoryLevel();
    const first = await start({ db });
    const created = await first.runtime.tokens.create({ scope: 'talk', name: 'bridge', expiresIn: '1d' });
    await first.stop();
    const second = await start({ db, clock: first.clock });
    expect(second.runtime.tokens.authenticate(created.token)).toMatchObject({ name: 'bridge', scope: 'talk' });
    expect(second.runtime.tokens.list()).toEqual([
      expect.objectContaining({ name: 'bridge', scope: 'talk', expiresAt: created.expiresAt }),
    ]);
    // The secret with its last character changed (to another one: a random secret may end in "A" already).
    const forged = `${created.token.slice(0, -1)}${created.token.endsWith('A') ? 'B' : 'A'}`;
    expect(second.runtime.tokens.authenticate(forged)).toBeNull();
  });

  it('records the last use at most once a minute, and refuses a token from its expiry on', async () => {
    const h = await start();
    const created = await h.runtime.tokens.create({ scope: 'read', name: 'scraper', expiresIn: 300 });
    const lastUsed = () => h.runtime.tokens.list()[0]!.lastUsedAt;
    expect(lastUsed()).toBeNull();
    h.runtime.tokens.authenticate(created.token);
    await h.settle();
    const firstUse = lastUsed();
    expect(firstUse).toBe(new Date(h.clock.now()).toISOString());
    h.clock.increment(LAST_USED_WRITE_EVERY_MS - 1);
    h.runtime.tokens.authenticate(created.token);
    await h.settle();
    expect(lastUsed()).toBe(firstUse);
    h.clock.increment(1);
    h.runtime.tokens.authenticate(created.token);
    await h.settle();
    expect(lastUsed()).toBe(new Date(h.clock.now()).toISOString());

    const ended: string[] = [];
    h.runtime.tokens.ended$.subscribe((end) => ended.push(`${end.name}:${end.reason}`));
    const caller = h.runtime.tokens.authenticate(created.token)!;
    h.clock.set(Date.parse(created.expiresAt!) - 1);
    expect(h.runtime.tokens.standing(caller)).toBe('live');
    expect(ended).toEqual([]);
    h.clock.increment(1);
    expect(h.runtime.tokens.standing(caller)).toBe('expired');
    expect(h.runtime.tokens.authenticate(created.token)).toBeNull();
    expect(ended).toEqual(['scraper:expired']);
  });
});
