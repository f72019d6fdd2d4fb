/** What the runtime's MCP tests share: cleanups run after each test, temp dirs, the fixture's call counter, and waits. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, vi } from 'vitest';
import type { RuntimeHarness } from '../fixtures/runtime.fixture.js';

/**
 * Registers an `afterEach` that runs the cleanups pushed during a test, newest first; returns the list to push to and
 * a temp dir maker (`prefix` names the dirs) whose dirs are removed the same way.
 */
export function useCleanups(prefix: string): { cleanups: Array<() => Promise<unknown>>; tempDir: () => string } {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  return { cleanups, tempDir };
}

/** How many times the fixture's `tally` tool ran, by its count file (0 before the first call). */
export function calls(file: string): number {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
}

/** Advances the simulated clock (a beat at a time) until `done` holds; the waits are on real I/O (the fixture server). */
export async function until(h: Pick<RuntimeHarness, 'advance'>, done: () => boolean, stepMs = 1000): Promise<void> {
  await vi.waitFor(
    async () => {
      await h.advance(stepMs, stepMs);
      expect(done()).toBe(true);
    },
    { timeout: 15_000, interval: 10 },
  );
}
