/** What one seed simulates: the runtime's settings and how hostile its world is, all drawn from the seed. */
import type { VigilConfig } from '../../src/config.js';
import { channelConfig, drawChannel, type SimChannelScenario } from './sim-chat-scenario.js';
import type { ModelFaults } from './sim-model.js';
import { SIM_SERVER, SIM_SERVER_ENTRY } from './sim-mcp-server.js';
import type { SimRandom } from './sim-random.js';

/** One seed's world. */
export interface SimScenario {
  seed: number;
  /** Epoch ms of the first boot. */
  startAt: number;
  /** Simulated ms of client activity and faults, then of the drain (no faults; every turn must end in it). */
  activeMs: number;
  drainMs: number;
  /** Mean simulated ms between two client actions. */
  meanGapMs: number;
  /** Crashes the run may inject (at a quiet moment or inside a storage operation). */
  maxCrashes: number;
  /** Probability that a write fails while a disk fault window is open. */
  writeFailP: number;
  /** Simulated fsync time of a synced write, in ms (min, max). */
  fsyncMs: [number, number];
  model: ModelFaults;
  /** Whether the operator adds webhook endpoints (sim-webhook-actions.ts). */
  webhooks: boolean;
  /** The chat channel people write to the agent through (sim-chat-platform.ts), or null. */
  channel: SimChannelScenario | null;
  config: Partial<VigilConfig>;
}

/** The identity every simulated agent runs with (short, so small context bounds still fit). */
export const SIM_IDENTITY = 'You are Sim, a careful assistant in a deterministic simulation. Answer briefly.';

/** The scenario of `seed`. */
export function drawScenario(seed: number, rng: SimRandom): SimScenario {
  const day = Date.parse('2026-03-01T00:00:00Z') + rng.int(0, 300) * 86_400_000;
  // A third of the seeds start just before midnight UTC: the daily budget resets while they run.
  const startAt = rng.chance(0.33) ? day - rng.int(30_000, 240_000) : day + rng.int(8, 20) * 3_600_000;
  const hostile = rng.chance(0.7);
  // A stream of their own: the draws above stay what they were before webhooks were simulated.
  const hooks = rng.fork('webhooks');
  // So is the channel's: a seed without one runs exactly as it did before channels were simulated.
  const channel = drawChannel(rng.fork('channel'));
  return {
    seed,
    startAt,
    activeMs: rng.int(2, 4) * 60_000,
    drainMs: 20 * 60_000,
    meanGapMs: rng.int(3_000, 10_000),
    maxCrashes: rng.int(0, 3),
    writeFailP: rng.chance(0.3) ? 0.2 : 0,
    fsyncMs: [1, rng.int(2, 30)],
    model: {
      refuse: hostile ? 0.02 : 0,
      overload: hostile ? 0.05 : 0,
      serverError: hostile ? 0.03 : 0,
      stall: hostile ? 0.08 : 0.02,
      hang: hostile ? 0.02 : 0,
      oddUsage: rng.chance(0.15) ? 0.03 : 0,
    },
    webhooks: hooks.chance(0.75),
    channel,
    config: {
      beatMs: 2_000,
      beatMinMs: 1_000,
      beatMaxMs: 10_000,
      checkpointIntervalBeats: rng.int(5, 30),
      checkpointMaxCount: rng.int(2, 5),
      dailyBudgetUsd: rng.pick([0.2, 1, 5]),
      timezone: 'UTC',
      debriefAfterS: rng.pick([30, 120, 600]),
      busyStrategy: rng.weighted({ interrupt: 5, enqueue: 4, reject: 1 }),
      maxToolIterations: 4,
      // Small bounds, so the conversation outgrows the window and older turns are summarised.
      contextTokens: rng.pick([6_000, 8_000, 12_000]),
      stuckTurnS: 120,
      eventJournalSize: 10_000_000,
      taskDeadlineMs: 120_000,
      model: 'claude-sonnet-5-5',
      mcp: { mcpServers: { [SIM_SERVER]: SIM_SERVER_ENTRY } },
      webhookTimeoutMs: hooks.pick([2_000, 5_000, 10_000]),
      ...(channel === null ? {} : { channels: channelConfig(channel) }),
    },
  };
}

/** `scenario` with no chat channel: what the seed was before channels were simulated. */
export function withoutChannel(scenario: SimScenario): SimScenario {
  const { channels: _channels, ...config } = scenario.config;
  return { ...scenario, channel: null, config };
}
