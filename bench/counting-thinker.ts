/** A `Thinker` that counts its calls and delegates to the offline thinker, so a bench can prove its beats were idle. */
import { OfflineThinker } from '../src/subsystems/thinking/offline-thinker.js';
import type { Thinker } from '../src/subsystems/thinking/thinker.js';
import type {
  SwarmTaskInput,
  SwarmTaskOutput,
  ThinkInput,
  ThinkResult,
} from '../src/subsystems/thinking/thinker.schema.js';

/** The offline thinker with a call counter. */
export class CountingThinker implements Thinker {
  readonly kind = 'offline';
  thinks = 0;
  tasks = 0;
  private readonly inner = new OfflineThinker();

  think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult> {
    this.thinks += 1;
    return this.inner.think(input, signal);
  }

  runTask(input: SwarmTaskInput, signal: AbortSignal): Promise<SwarmTaskOutput> {
    this.tasks += 1;
    return this.inner.runTask(input, signal);
  }
}
