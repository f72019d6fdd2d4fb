import { describe, expect, it } from 'vitest';
import { configFromDefaults } from '../../src/config.js';
import { DEFAULT_GOAL_WORK_EVERY_BEATS, heartbeatOptionsFrom } from '../../src/runtime/heartbeat-options.js';

describe('heartbeatOptionsFrom', () => {
  it('maps each setting to the beat loop’s option, seconds to milliseconds and dollars to micro-dollars', () => {
    const config = configFromDefaults({
      beatMs: 2_000,
      beatMinMs: 500,
      beatMaxMs: 60_000,
      windDownPct: 80,
      hardStopPct: 120,
      debriefAfterS: 45,
      stuckTurnS: 90,
      busyStrategy: 'enqueue',
      taskDeadlineMs: 30_000,
      taskMaxCostUsd: 0.25,
      contextTokens: 20_000,
    });
    expect(heartbeatOptionsFrom(config, { goalWorkEveryBeats: 3 })).toEqual({
      beatMs: 2_000,
      beatMinMs: 500,
      beatMaxMs: 60_000,
      goalWorkEveryBeats: 3,
      budgetLimits: { windDownPct: 80, hardStopPct: 120 },
      debriefAfterMs: 45_000,
      stuckTurnMs: 90_000,
      busyStrategy: 'enqueue',
      tasks: { deadlineMs: 30_000, maxCostMicroUsd: 250_000 },
      contextTokens: 20_000,
    });
  });

  it('works on a goal every 5 beats when the host does not say', () => {
    const options = heartbeatOptionsFrom(configFromDefaults({}));
    expect(options.goalWorkEveryBeats).toBe(DEFAULT_GOAL_WORK_EVERY_BEATS);
    expect(DEFAULT_GOAL_WORK_EVERY_BEATS).toBe(5);
  });

  it('answers the same configuration with an equal object, and leaves the configuration as it was', () => {
    const config = configFromDefaults({});
    const before = structuredClone(config);
    expect(heartbeatOptionsFrom(config)).toEqual(heartbeatOptionsFrom(config));
    expect(config).toEqual(before);
  });
});
