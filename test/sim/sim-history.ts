/** Everything one simulated run recorded, for the checker: the journal, every client's stream, the model's requests, the server's effects. */
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import type { ScheduleView } from '../../src/protocol/schedules.schema.js';
import type { SimChannelHistory } from './sim-channels-check.js';
import type { SimChain } from './sim-clients.js';
import type { SimEffect } from './sim-mcp-server.js';
import type { SimModelRequest } from './sim-model.js';
import type { SimScenario } from './sim-scenario.js';
import type { SimWebhooksHistory } from './sim-webhooks-check.js';

/** One runtime incarnation's life. */
export interface IncarnationRecord {
  number: number;
  bootedAt: number;
  /** The newest journaled seq on disk when it booted. */
  journalSeqAtBoot: number;
  /** Every event its bus published, in publish order. */
  published: VigilEvent[];
  /** Null while it lived to the end (a clean stop). */
  death: { at: number; how: string } | null;
  /** Whether createRuntime returned (false: it died while booting). */
  booted: boolean;
}

/** A client's `agent.send`. */
export interface SendRecord {
  at: number;
  incarnation: number;
  chars: number;
  /** The turn id, an error code, or null while it never settled (its process died). */
  turnId: string | null;
  error: string | null;
}

/** What a client saw of the budget at one moment. */
export interface BudgetSample {
  at: number;
  incarnation: number;
  /** When the budget day being counted ends (the day's identity). */
  resetsAt: string;
  spentTodayUsd: number;
}

/** One operator action and how it ended. */
export interface ActionRecord {
  at: number;
  incarnation: number;
  action: string;
  outcome: string;
}

/** The whole run. */
export interface SimHistory {
  scenario: SimScenario;
  incarnations: IncarnationRecord[];
  /** The journal as it is on disk at the end, oldest first. */
  journal: VigilEvent[];
  /** Seqs whose journal write was failed on purpose (missing from the journal by design). */
  failedJournalSeqs: ReadonlySet<number>;
  chains: SimChain[];
  requests: SimModelRequest[];
  effects: SimEffect[];
  sends: SendRecord[];
  actions: ActionRecord[];
  /** Every schedule as the runtime listed them right before the final stop, and when (null: it was not alive then). */
  schedules: ScheduleView[];
  schedulesListedAt: number | null;
  /** User turn ids in the conversation log at the end. */
  loggedTurnIds: string[];
  budget: BudgetSample[];
  /** Every POST the simulated receivers took, the operator's endpoints, and the runtime's final listing of them. */
  webhooks: SimWebhooksHistory;
  /** The chat platform's world, and the channel's records at the end (null: the seed has no channel). */
  channel: SimChannelHistory | null;
  /** Whether every turn could end: the drain reached a state with nothing pending, then a clean stop. */
  drained: boolean;
  /** What the drain last found still pending. */
  drainState: string;
  stoppedCleanly: boolean;
  /** Simulated ms the run covered, and the steps it took. */
  simulatedMs: number;
  steps: number;
  /** Warnings and errors the runtime logged, with their simulated time. */
  log: string[];
}
