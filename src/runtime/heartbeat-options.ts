/** The heartbeat's tunables from the configuration: a pure mapping, so what each setting becomes is tested on its own. */
import type { VigilConfig } from '../config.js';
import type { HeartbeatOptions } from '../heartbeat/heartbeat.types.js';
import { usdToMicroUsd } from '../subsystems/thinking/pricing.js';

/** Beats between autonomous thinks on a goal that is not yet due, when the host does not say. */
export const DEFAULT_GOAL_WORK_EVERY_BEATS = 5;

/** What the host sets beside the configuration (`RuntimeOptions.goalWorkEveryBeats`). */
export interface HeartbeatOverrides {
  goalWorkEveryBeats?: number;
}

/** The beat loop's options: seconds become milliseconds, dollars micro-dollars, percentages the budget's limits. */
export function heartbeatOptionsFrom(config: VigilConfig, overrides: HeartbeatOverrides = {}): HeartbeatOptions {
  return {
    beatMs: config.beatMs,
    beatMinMs: config.beatMinMs,
    beatMaxMs: config.beatMaxMs,
    goalWorkEveryBeats: overrides.goalWorkEveryBeats ?? DEFAULT_GOAL_WORK_EVERY_BEATS,
    budgetLimits: { windDownPct: config.windDownPct, hardStopPct: config.hardStopPct },
    debriefAfterMs: config.debriefAfterS * 1000,
    stuckTurnMs: config.stuckTurnS * 1000,
    busyStrategy: config.busyStrategy,
    tasks: { deadlineMs: config.taskDeadlineMs, maxCostMicroUsd: usdToMicroUsd(config.taskMaxCostUsd) },
    contextTokens: config.contextTokens,
  };
}
