/** Small helpers every benchmark shares: order statistics, temp dirs, and yielding to the event loop. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Runtime } from '../src/runtime/runtime.js';
import type { RuntimeCore } from '../src/runtime/runtime-core.js';

/** The median of `values` (NaN when empty). */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The `p`th percentile of `values` by linear interpolation between closest ranks (NaN when empty). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** The largest of `values` (NaN when empty). */
export function max(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : Math.max(...values);
}

/** Runs `fn` with a fresh temp dir that is removed afterwards, whatever happens. */
export async function withTempDir<T>(label: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `vigil-bench-${label}-`));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Lets pending promises, I/O callbacks and zero-delay timers run (LevelDB and zlib answer on later ticks). */
export async function yieldToLoop(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** Milliseconds `fn` takes, from a high-resolution timer. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * A runtime's core (its parts and heartbeat actor). Benchmarks measure the stores and actors directly, below the
 * facade the product exposes; nothing outside `bench/` reaches in like this.
 */
export function internalsOf(runtime: Runtime): RuntimeCore {
  return (runtime as unknown as { core: RuntimeCore }).core;
}

/** A full garbage collection now, without starting node with --expose-gc (the flag is set for a new context). */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
