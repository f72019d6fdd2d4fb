/** The facade's think traces area: `thinks.list`, `thinks.get`, and a listener for each trace as it is stored. */
import type { ThinkTrace, ThinkTraceSummary } from '../../protocol/think-trace.schema.js';
import type { ThinksListParams } from '../../protocol/thinks.schema.js';
import type { RuntimeCore } from '../runtime-core.js';

/** `thinks.list`: the newest `limit` thinks (default 20) older than `before`, newest first. */
export function listThinks(core: RuntimeCore, params: ThinksListParams = {}): Promise<ThinkTraceSummary[]> {
  return core.parts.traces.list(params);
}

/** `thinks.get`: one think with its calls and the prompt's sections; THINK_NOT_FOUND when it is not kept. */
export function getThink(core: RuntimeCore, id: string): Promise<ThinkTrace> {
  return core.parts.traces.get(id);
}

/** Calls `listener` with every think trace once stored; returns the function that stops it. */
export function onThinkTrace(core: RuntimeCore, listener: (trace: ThinkTrace) => void): () => void {
  return core.parts.traces.onTrace(listener);
}
