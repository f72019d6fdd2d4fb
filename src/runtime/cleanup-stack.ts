/**
 * The runtime's one cleanup stack: each boot phase defers the undoing of what it acquired, as it acquires it, and
 * both a boot that fails and `Runtime.stop()` run the same stack, newest first. Close order is construction order
 * reversed, so no hand-written close has to mirror the boot.
 */
import type { VigilLogger } from '../shared/logger.js';

/** One disposer that threw or rejected while the stack ran. */
export interface CleanupFailure {
  /** The name it was deferred under. */
  name: string;
  error: unknown;
}

interface Deferred {
  name: string;
  dispose: () => unknown;
}

/** Disposers run in reverse order of `defer`, each exactly once, every one even when an earlier one fails. */
export class CleanupStack {
  private readonly deferred: Deferred[] = [];
  private run: Promise<readonly CleanupFailure[]> | null = null;

  constructor(private readonly log: VigilLogger) {}

  /**
   * Adds `dispose` under `name` (for the log line if it fails). Deferred once the stack has run (a boot part acquired
   * after it was abandoned), it runs at once: nothing acquired late is left behind.
   */
  defer(name: string, dispose: () => unknown): void {
    if (this.run === null) {
      this.deferred.push({ name, dispose });
      return;
    }
    void this.runOne({ name, dispose });
  }

  /** True once `runAll` was called. */
  get ran(): boolean {
    return this.run !== null;
  }

  /**
   * Runs every disposer, newest first, one at a time (a later one may need an earlier one's end: the bus closed before
   * the seq records its last number). Each failure is logged and collected; none stops the rest. A second call
   * returns the first one's result.
   */
  runAll(): Promise<readonly CleanupFailure[]> {
    this.run ??= this.drain();
    return this.run;
  }

  private async drain(): Promise<readonly CleanupFailure[]> {
    const failures: CleanupFailure[] = [];
    for (let next = this.deferred.pop(); next !== undefined; next = this.deferred.pop()) {
      const failure = await this.runOne(next);
      if (failure !== null) failures.push(failure);
    }
    return failures;
  }

  private async runOne({ name, dispose }: Deferred): Promise<CleanupFailure | null> {
    try {
      await dispose();
      return null;
    } catch (error) {
      this.log.error({ err: error, step: name }, 'a cleanup step failed; the others still run');
      return { name, error };
    }
  }
}
