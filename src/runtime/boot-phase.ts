/** What every boot phase of `createRuntime` is handed, and the phases' names in boot order. */
import type { VigilConfig } from '../config.js';
import type { Clock } from '../shared/clock.js';
import type { VigilLogger } from '../shared/logger.js';
import type { Thinker } from '../subsystems/thinking/thinker.js';
import type { CleanupStack } from './cleanup-stack.js';
import type { RuntimeOptions } from './runtime-options.js';

/** The boot's phases, in order; each defers on the stack the undoing of what it acquires, as it acquires it. */
export const BOOT_PHASES = ['storage', 'events', 'records', 'seed', 'tools', 'retention', 'mind', 'runtime'] as const;

/** One phase of the boot. */
export type BootPhase = (typeof BOOT_PHASES)[number];

/** What every phase is given. */
export interface BootBase {
  options: RuntimeOptions;
  config: VigilConfig;
  clock: Clock;
  log: VigilLogger;
  thinker: Thinker;
  /** Where each phase defers its disposers: run newest first by a boot that fails and by the runtime's close. */
  stack: CleanupStack;
}
