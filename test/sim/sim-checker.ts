/**
 * The simulator's invariants, checked over a run's whole history: the journal on disk, every event each incarnation's
 * bus published, every client's stream, the model's requests and the MCP server's effects. Each returns the
 * violations it found, in words that name the seq, turn or call.
 */
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import type { SimSession } from './sim-clients.js';
import type { SimHistory } from './sim-history.js';
import { MAX_STEPS } from './sim-run.js';
import { checkChannels } from './sim-channels-check.js';
import { checkSchedules } from './sim-schedules-check.js';
import { checkWebhooks } from './sim-webhooks-check.js';

/** One broken promise. */
export interface Violation {
  invariant: string;
  detail: string;
}

/** Violations listed per invariant; past these, one line says how many more. */
const LISTED_PER_INVARIANT = 10;

/** Every invariant, over `history` (at most ten violations listed per invariant). */
export function checkHistory(history: SimHistory): Violation[] {
  return capped(everyViolation(history));
}

function capped(violations: Violation[]): Violation[] {
  const listed = new Map<string, number>();
  const out: Violation[] = [];
  for (const violation of violations) {
    const count = (listed.get(violation.invariant) ?? 0) + 1;
    listed.set(violation.invariant, count);
    if (count <= LISTED_PER_INVARIANT) out.push(violation);
  }
  for (const [invariant, count] of listed) {
    if (count > LISTED_PER_INVARIANT)
      out.push({ invariant, detail: `… and ${count - LISTED_PER_INVARIANT} more like these` });
  }
  return out;
}

function everyViolation(history: SimHistory): Violation[] {
  const all = allEvents(history);
  return [
    ...checkTurns(history, all),
    ...checkStreams(history, all),
    ...checkTools(history, all),
    ...checkMoney(history),
    ...checkSeqs(history),
    ...checkPrompts(history, all),
    ...checkSchedules(history, all),
    ...checkWebhooks(history, all),
    ...checkChannels(history, all),
    ...checkDrained(history),
  ];
}

/** Every event that ever existed: the journal on disk, and what each bus published (a crash can lose those from the journal). */
function allEvents(history: SimHistory): Map<number, VigilEvent> {
  const bySeq = new Map<number, VigilEvent>();
  for (const event of history.journal) bySeq.set(event.seq, event);
  for (const incarnation of history.incarnations)
    for (const event of incarnation.published) if (!bySeq.has(event.seq)) bySeq.set(event.seq, event);
  return new Map([...bySeq].sort(([a], [b]) => a - b));
}

const TERMINAL = new Set(['agent.reply', 'agent.unanswered']);
const SAID_FOR_A_TURN = new Set(['agent.reply', 'agent.unanswered', 'agent.ack']);

/** Every turn ends in exactly one agent.reply or agent.unanswered, and nothing is said for it after that. */
export function checkTurns(history: SimHistory, all: Map<number, VigilEvent>): Violation[] {
  const violations: Violation[] = [];
  const turns = new Set<string>(history.loggedTurnIds);
  for (const send of history.sends) if (send.turnId !== null) turns.add(send.turnId);
  for (const event of all.values()) if (event.type === 'agent.message') turns.add(event.turnId);
  const said = new Map<string, VigilEvent[]>();
  for (const event of all.values()) {
    if (!SAID_FOR_A_TURN.has(event.type)) continue;
    const turnId = (event as { turnId: string }).turnId;
    said.set(turnId, [...(said.get(turnId) ?? []), event]);
  }
  for (const turnId of turns) {
    const events = said.get(turnId) ?? [];
    const terminals = events.filter((e) => TERMINAL.has(e.type));
    if (terminals.length !== 1) {
      const what =
        terminals.length === 0
          ? 'no terminal event'
          : `${terminals.length} terminal events (${terminals.map((e) => `${e.type} seq ${e.seq}`).join(', ')})`;
      violations.push({ invariant: 'every turn ends exactly once', detail: `turn ${turnId} has ${what}` });
      continue;
    }
    const end = terminals[0]!;
    for (const later of events.filter((e) => e.seq > end.seq)) {
      violations.push({
        invariant: 'nothing is said for a turn after its end',
        detail: `turn ${turnId} ended at seq ${end.seq} (${end.type}), then ${later.type} seq ${later.seq}`,
      });
    }
  }
  return violations;
}

/**
 * Every subscription received, in strictly increasing seq, exactly the events of its types it could have: those its
 * incarnation published while it was connected, and every event that exists (journaled or published) between where
 * it started and the newest seq its incarnation had published when it ended (a subscription cut while it still
 * replayed the journal: those below the newest it got). A client's subscriptions together never repeat a seq.
 */
export function checkStreams(history: SimHistory, all: Map<number, VigilEvent>): Violation[] {
  const violations: Violation[] = [];
  const journaled = new Set(history.journal.map((e) => e.seq));
  for (const chain of history.chains) {
    let last = 0;
    for (const [index, session] of chain.sessions.entries()) {
      const name = `client ${chain.id} subscription ${index + 1} (incarnation ${session.incarnation}, ${describeStart(session)}, types ${JSON.stringify(session.types ?? 'all')})`;
      for (const event of session.events) {
        if (event.seq <= last)
          violations.push({
            invariant: 'a client sees each event once, in seq order',
            detail: `${name} received seq ${event.seq} (${event.type}) after seq ${last}`,
          });
        last = Math.max(last, event.seq);
        if (!matches(session.types, event.type))
          violations.push({
            invariant: 'a client sees only the types it asked for',
            detail: `${name} received ${event.type} seq ${event.seq}`,
          });
      }
      const received = new Set(session.events.map((e) => e.seq));
      const newest = session.events[session.events.length - 1]?.seq ?? 0;
      for (const missing of expected(session, history, all, journaled)) {
        // A subscription cut while it still replayed owes only what lies below what it got; a live one owes all.
        if (received.has(missing.seq) || (!session.wentLive && missing.seq > newest)) continue;
        const why = publishedLate(history, session, missing.seq);
        violations.push({
          invariant: 'a client loses no event',
          detail: `${name} never received ${missing.type} seq ${missing.seq}${why} (ended by ${session.endedBy ?? 'nothing'} at horizon ${session.horizon ?? '?'})`,
        });
      }
    }
  }
  return violations;
}

/** Why a missed event was missed, when its bus published it after a later seq this client had already received. */
function publishedLate(history: SimHistory, session: SimSession, seq: number): string {
  const published = history.incarnations[session.incarnation - 1]!.published;
  const at = published.findIndex((e) => e.seq === seq);
  if (at === -1) return '';
  const received = new Set(session.events.map((e) => e.seq));
  const overtaken = published.slice(0, at).find((e) => e.seq > seq && received.has(e.seq));
  return overtaken === undefined
    ? ''
    : `: it was published after seq ${overtaken.seq} (${overtaken.type}), which the client had already received`;
}

function describeStart(session: SimSession): string {
  return session.after === undefined ? `live after ${session.liveAfter}` : `after ${session.after}`;
}

function expected(
  session: SimSession,
  history: SimHistory,
  all: Map<number, VigilEvent>,
  journaled: Set<number>,
): VigilEvent[] {
  const incarnation = history.incarnations[session.incarnation - 1]!;
  const start = session.after ?? session.liveAfter;
  const horizon = session.horizon ?? start;
  const live = incarnation.published.slice(session.publishedFrom, session.publishedTo ?? incarnation.published.length);
  const liveSeqs = new Set(live.map((e) => e.seq));
  const ownSeqs = new Set(incarnation.published.map((e) => e.seq));
  const want = new Map<number, VigilEvent>();
  for (const event of live) want.set(event.seq, event);
  for (const [seq, event] of all) {
    if (seq <= start || seq > horizon || liveSeqs.has(seq)) continue;
    // Never journaled, and published by another incarnation: a crash lost it before any client could read it back.
    if (!journaled.has(seq) && !ownSeqs.has(seq)) continue;
    // Its journal write failed on purpose: only a client connected when it was published could see it.
    if (history.failedJournalSeqs.has(seq)) continue;
    want.set(seq, event);
  }
  return [...want.values()].filter((e) => matches(session.types, e.type)).sort((a, b) => a.seq - b.seq);
}

function matches(types: readonly string[] | undefined, type: string): boolean {
  if (types === undefined || types.length === 0) return true;
  return types.some((t) => (t.endsWith('.*') ? type.startsWith(t.slice(0, -1)) : t === type));
}

/**
 * No tool that is not idempotent ran twice (by the server's count of effects per call key); a denied call never ran;
 * every call the journal saw start either completed or was reported `tool.interrupted`, and no call is reported
 * interrupted more than once.
 */
export function checkTools(history: SimHistory, all: Map<number, VigilEvent>): Violation[] {
  const violations: Violation[] = [];
  const runs = new Map<string, number>();
  for (const effect of history.effects)
    if (effect.tool !== 'lookup') runs.set(effect.key, (runs.get(effect.key) ?? 0) + 1);
  for (const [key, count] of runs)
    if (count > 1)
      violations.push({
        invariant: 'a non-idempotent tool runs at most once',
        detail: `call key ${key} ran ${count} times`,
      });
  const keyOf = new Map<string, string>();
  for (const event of all.values()) {
    if (event.type === 'tool.approval_requested')
      keyOf.set(event.callId, String((event.args as { key?: unknown } | null)?.key));
  }
  const ran = new Set(history.effects.map((e) => e.key));
  for (const event of all.values()) {
    if (event.type !== 'tool.approval_decided' || event.approved) continue;
    const key = keyOf.get(event.callId);
    if (key !== undefined && ran.has(key))
      violations.push({
        invariant: 'a denied call never runs',
        detail: `call ${event.callId} (key ${key}) was denied and ran`,
      });
  }
  const interrupted = new Map<string, number>();
  for (const event of all.values())
    if (event.type === 'tool.interrupted') interrupted.set(event.callId, (interrupted.get(event.callId) ?? 0) + 1);
  for (const [callId, count] of interrupted)
    if (count > 1)
      violations.push({
        invariant: 'a cut call is reported interrupted once',
        detail: `call ${callId} was reported interrupted ${count} times`,
      });
  const journal = history.journal;
  const completed = new Set(
    journal.filter((e) => e.type === 'tool.completed').map((e) => (e as { callId: string }).callId),
  );
  const completedLost = new Set(
    [...all.values()]
      .filter((e) => e.type === 'tool.completed' && history.failedJournalSeqs.has(e.seq))
      .map((e) => (e as { callId: string }).callId),
  );
  for (const event of journal) {
    if (event.type !== 'tool.called') continue;
    const done = completed.has(event.callId);
    const cut = interrupted.has(event.callId);
    // A result whose write failed is unknown to the log: reporting it interrupted after the next boot is the safe side.
    if (done && cut && !completedLost.has(event.callId))
      violations.push({
        invariant: 'a cut call is reported interrupted once',
        detail: `call ${event.callId} completed and was also reported interrupted`,
      });
    if (!done && !cut && !completedLost.has(event.callId)) {
      violations.push({
        invariant: 'a cut call is reported interrupted once',
        detail: `call ${event.callId} (${event.name}) started (seq ${event.seq}) and neither completed nor was reported interrupted`,
      });
    }
  }
  return violations;
}

/** The money spent today never goes down, across crashes and restarts, except when a new budget day begins. */
export function checkMoney(history: SimHistory): Violation[] {
  const violations: Violation[] = [];
  let previous: SimHistory['budget'][number] | undefined;
  for (const sample of history.budget) {
    if (previous !== undefined) {
      if (sample.resetsAt < previous.resetsAt) {
        violations.push({
          invariant: 'the budget day only moves forward',
          detail: `at ${iso(sample.at)} the day ending ${sample.resetsAt} follows the one ending ${previous.resetsAt}`,
        });
      } else if (sample.resetsAt === previous.resetsAt && sample.spentTodayUsd < previous.spentTodayUsd) {
        violations.push({
          invariant: 'money spent today never goes down',
          detail: `at ${iso(sample.at)} (incarnation ${sample.incarnation}) spent today $${sample.spentTodayUsd} after $${previous.spentTodayUsd} at ${iso(previous.at)} (incarnation ${previous.incarnation})`,
        });
      }
    }
    previous = sample;
  }
  return violations;
}

/** Seq only grows: within an incarnation no seq repeats, and every incarnation's seqs lie above everything before it. */
export function checkSeqs(history: SimHistory): Violation[] {
  const violations: Violation[] = [];
  let before = 0;
  for (const incarnation of history.incarnations) {
    const floor = Math.max(before, incarnation.journalSeqAtBoot);
    const seen = new Set<number>();
    for (const event of incarnation.published) {
      if (seen.has(event.seq))
        violations.push({
          invariant: 'seq only grows',
          detail: `incarnation ${incarnation.number} published seq ${event.seq} twice`,
        });
      seen.add(event.seq);
      if (event.seq <= floor)
        violations.push({
          invariant: 'seq only grows',
          detail: `incarnation ${incarnation.number} published seq ${event.seq} (${event.type}), not above ${floor} from before it`,
        });
    }
    for (const seq of seen) before = Math.max(before, seq);
  }
  for (let i = 1; i < history.journal.length; i += 1) {
    if (history.journal[i]!.seq <= history.journal[i - 1]!.seq)
      violations.push({
        invariant: 'seq only grows',
        detail: `the journal holds seq ${history.journal[i]!.seq} after ${history.journal[i - 1]!.seq}`,
      });
  }
  return violations;
}

/**
 * No request exceeds VIGIL_CONTEXT_TOKENS by the plain estimate, and no think is refused locally for room while its
 * plain estimate fits: the simulated conversation keeps every prompt's fixed part far under the bound.
 */
export function checkPrompts(history: SimHistory, all: Map<number, VigilEvent>): Violation[] {
  const violations: Violation[] = [];
  const bound = history.scenario.config.contextTokens ?? 16_000;
  for (const request of history.requests) {
    if (request.plainTokens > bound) {
      violations.push({
        invariant: 'no request exceeds VIGIL_CONTEXT_TOKENS',
        detail: `request ${request.index} (${request.kind}) is ${request.plainTokens} tokens by the plain estimate, over ${bound}`,
      });
    }
  }
  const fixed = Math.max(0, ...history.requests.map((r) => r.fixedTokens));
  // The least a prompt can be: its fixed part, and the state with every message cut to its minimum.
  if (fixed + 2_000 > bound) return violations;
  for (const event of all.values()) {
    // Refused by Vigil itself (the API's refusals name their HTTP status instead).
    if (
      event.type !== 'think.failed' ||
      event.code !== 'THINK_REJECTED' ||
      !event.reason.includes('VIGIL_CONTEXT_TOKENS=')
    )
      continue;
    violations.push({
      invariant: 'no think is refused while its plain estimate fits',
      detail: `seq ${event.seq} at ${event.at}: ${event.reason} (fixed part ${fixed} tokens)`,
    });
  }
  return violations;
}

/** The run reached a moment with nothing pending and stopped cleanly (else a turn or call hung). */
export function checkDrained(history: SimHistory): Violation[] {
  const violations: Violation[] = [];
  if (history.steps >= MAX_STEPS) {
    const minutes = (history.simulatedMs / 60_000).toFixed(1);
    return [
      {
        invariant: 'the runtime rests between beats',
        detail: `${history.steps} steps in ${minutes} simulated min: it busy-loops (${history.drainState})`,
      },
    ];
  }
  if (!history.drained)
    violations.push({
      invariant: 'every turn can end',
      detail: `after ${history.scenario.drainMs / 60_000} min without faults, work was still pending (${history.drainState})`,
    });
  if (!history.stoppedCleanly)
    violations.push({ invariant: 'the runtime stops cleanly', detail: 'the final stop did not complete' });
  return violations;
}

const iso = (ms: number) => new Date(ms).toISOString();
