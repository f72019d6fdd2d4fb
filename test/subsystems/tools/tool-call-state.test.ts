/** The lifecycle of a tool call in memory: every event against every state, and the phase of every kind of stored record. */
import { describe, expect, it } from 'vitest';
import type { ToolCallRecord } from '../../../src/protocol/tool-call.schema.js';
import { NO_APPROVAL_WAITS } from '../../../src/subsystems/tools/approval-waits.js';
import {
  phaseOf,
  transition,
  turnWaits,
  type CallEvent,
  type CallState,
  type RecordPhase,
} from '../../../src/subsystems/tools/tool-call-state.js';

const AT = Date.parse('2026-03-01T08:00:00Z');
const call: ToolCallRecord = {
  callId: 'c1',
  turnId: 't-1',
  name: 'mcp__s__write',
  args: { a: 1 },
  at: AT,
  idempotent: false,
};
const result = { ok: true, durationMs: 2, resultBytes: 3, text: 'done' };
const pending: ToolCallRecord = { ...call, approval: { state: 'pending' } };
const approved: ToolCallRecord = { ...call, approval: { state: 'approved', decidedAt: AT } };
const denied: ToolCallRecord = { ...call, approval: { state: 'denied', decidedAt: AT, reason: 'no' } };
const notice = { callId: 'c1', turnId: 't-1', name: call.name, line: 'told' };

const STATES: Record<string, CallState | undefined> = {
  'not kept': undefined,
  'awaiting-approval': { phase: 'awaiting-approval', record: pending },
  deciding: { phase: 'deciding', record: pending },
  running: { phase: 'running', record: approved },
  'decided-untold': { phase: 'decided-untold', record: denied, notice },
  'unknown-untold': { phase: 'unknown-untold', notice },
};

const EVENTS: Record<string, CallEvent> = {
  requested: { type: 'requested', record: pending },
  'decision-started': { type: 'decision-started' },
  'decision-failed': { type: 'decision-failed' },
  'decided (approved)': { type: 'decided', record: approved },
  'decided (denied)': { type: 'decided', record: denied },
  'decided (still pending)': { type: 'decided', record: pending },
  ran: { type: 'ran', result },
  'run-failed': { type: 'run-failed' },
  told: { type: 'told' },
  'recovered (pending)': { type: 'recovered', record: pending },
  'recovered (interrupted)': { type: 'recovered', record: call },
  'announced (interrupted)': { type: 'announced', record: call },
  'announced (with a result)': { type: 'announced', record: { ...call, result } },
};

// The phase each event leads to from each state (a column per state, in STATES' order): `gone` drops the call;
// `refused` leaves it as it was.
const R = 'refused';
const TABLE: Array<[event: string, ...outcomes: string[]]> = [
  // event                       not kept             awaiting-approval  deciding             running            decided-untold  unknown-untold
  ['requested', 'awaiting-approval', R, R, R, R, R],
  ['decision-started', R, 'deciding', R, R, R, R],
  ['decision-failed', R, R, 'awaiting-approval', R, R, R],
  ['decided (approved)', R, R, 'running', R, R, R],
  ['decided (denied)', R, R, 'decided-untold', R, R, R],
  ['decided (still pending)', R, R, R, R, R, R],
  ['ran', R, R, R, 'decided-untold', R, R],
  ['run-failed', R, R, R, 'gone', R, R],
  ['told', R, R, R, R, 'gone', 'gone'],
  ['recovered (pending)', 'awaiting-approval', R, R, R, R, R],
  ['recovered (interrupted)', R, R, R, R, R, R],
  ['announced (interrupted)', 'unknown-untold', R, R, R, R, R],
  ['announced (with a result)', R, R, R, R, R, R],
];

const cases = TABLE.flatMap(([event, ...outcomes]) =>
  Object.keys(STATES).map((state, column) => [event, state, outcomes[column]!] as const),
);

describe('transition', () => {
  it('has a row for every event and a column for every state', () => {
    expect(TABLE.map(([event]) => event)).toEqual(Object.keys(EVENTS));
    for (const [, ...outcomes] of TABLE) expect(outcomes).toHaveLength(Object.keys(STATES).length);
  });

  it.each(cases)('%s, from %s: %s', (event, state, expected) => {
    const step = transition(STATES[state], EVENTS[event]!);
    if (expected === R) {
      expect(step).toEqual({
        ok: false,
        refused: expect.stringContaining(`${EVENTS[event]!.type} does not apply to a call ${state}`),
      });
      return;
    }
    expect(step.ok).toBe(true);
    const next = step.ok ? step.state : undefined;
    expect(next === undefined ? 'gone' : next.phase).toBe(expected);
  });

  it('keeps the record through a decision started and failed, and takes the decided one', () => {
    const waiting = STATES['awaiting-approval'];
    expect(transition(waiting, EVENTS['decision-started']!)).toEqual({
      ok: true,
      state: { phase: 'deciding', record: pending },
    });
    expect(transition(STATES.deciding, EVENTS['decision-failed']!)).toEqual({
      ok: true,
      state: { phase: 'awaiting-approval', record: pending },
    });
    expect(transition(STATES.deciding, EVENTS['decided (approved)']!)).toEqual({
      ok: true,
      state: { phase: 'running', record: approved },
    });
  });

  it('tells a denial with its reason, and a call that ran with its result', () => {
    const told = (step: ReturnType<typeof transition>) =>
      step.ok && step.state?.phase === 'decided-untold' ? step.state : undefined;
    const denial = told(transition(STATES.deciding, EVENTS['decided (denied)']!));
    expect(denial).toMatchObject({ record: denied, notice: { callId: 'c1', turnId: 't-1', name: call.name } });
    expect(denial!.notice.line).toMatch(/was denied by the operator \(the reason given: no\)\. It was not run\.$/);
    const ran = told(transition(STATES.running, EVENTS.ran!));
    expect(ran!.record).toEqual({ ...approved, result });
    expect(ran!.notice.line).toMatch(/was approved by the operator and returned:\ndone$/);
  });

  it('announces an interrupted call without approval as of unknown outcome, and an approved one through its decision', () => {
    const unknown = transition(undefined, EVENTS['announced (interrupted)']!);
    expect(unknown).toEqual({
      ok: true,
      state: {
        phase: 'unknown-untold',
        notice: {
          callId: 'c1',
          turnId: 't-1',
          name: call.name,
          line: expect.stringMatching(
            /^Tool call c1 \(mcp__s__write with arguments \{"a":1\}\) was interrupted by a restart: its outcome is unknown\. It was not run again/,
          ),
        },
      },
    });
    const cut = transition(undefined, { type: 'announced', record: approved });
    expect(cut).toMatchObject({
      ok: true,
      state: { phase: 'decided-untold', record: { ...approved, interruptedReported: true } },
    });
    expect(cut.ok && cut.state?.phase === 'decided-untold' && cut.state.notice.line).toMatch(
      /approved by the operator, but a restart interrupted it/,
    );
    const told = transition(undefined, {
      type: 'announced',
      record: { ...approved, approval: { ...approved.approval!, delivered: true } },
    });
    expect(told).toEqual({ ok: true, state: undefined });
  });

  it('recovers a record into the state its phase says', () => {
    expect(transition(undefined, { type: 'recovered', record: denied })).toMatchObject({
      ok: true,
      state: { phase: 'decided-untold', record: denied },
    });
    expect(transition(undefined, { type: 'recovered', record: { ...call, result } })).toEqual({
      ok: true,
      state: undefined,
    });
  });
});

describe('phaseOf', () => {
  const delivered = <T extends ToolCallRecord>(record: T): T => ({
    ...record,
    approval: { ...record.approval!, delivered: true },
  });
  it.each<[string, ToolCallRecord, RecordPhase]>([
    ['a pending call', pending, 'awaiting-approval'],
    ['a denied call not told', denied, 'decision-untold'],
    ['a denied call told', delivered(denied), 'settled'],
    ['a call without approval that ended', { ...call, result }, 'settled'],
    ['a call without approval, interrupted', call, 'interrupted-unannounced'],
    ['a call without approval, interrupted and announced', { ...call, interruptedReported: true }, 'settled'],
    ['an approved call that ran, not told', { ...approved, result }, 'decision-untold'],
    ['an approved call that ran, told', delivered({ ...approved, result }), 'settled'],
    ['an approved call, interrupted', approved, 'interrupted-unannounced'],
    ['an approved call, interrupted, told but never announced', delivered(approved), 'interrupted-unannounced'],
    [
      'an approved call, interrupted and announced, not told',
      { ...approved, interruptedReported: true },
      'decision-untold',
    ],
    [
      'an approved call, interrupted, announced and told',
      delivered({ ...approved, interruptedReported: true }),
      'settled',
    ],
  ])('%s: %s', (_what, record, phase) => {
    expect(phaseOf(record)).toBe(phase);
  });
});

describe('turnWaits', () => {
  it('waits on turns with a call awaiting, being decided or running; holds those and the ones with a decision untold', () => {
    const on = (turnId: string | undefined, state: CallState): CallState =>
      state.phase === 'unknown-untold' ? state : { ...state, record: { ...state.record, turnId } };
    const waits = turnWaits([
      on('t-a', STATES['awaiting-approval']!),
      on('t-b', STATES.deciding!),
      on('t-c', STATES.running!),
      on('t-d', STATES['decided-untold']!),
      STATES['unknown-untold']!,
      on(undefined, STATES.running!),
    ]);
    expect([...waits.waiting].sort()).toEqual(['t-a', 't-b', 't-c']);
    expect([...waits.held].sort()).toEqual(['t-a', 't-b', 't-c', 't-d']);
    expect(turnWaits([STATES['unknown-untold']!])).toEqual({ waiting: NO_APPROVAL_WAITS, held: NO_APPROVAL_WAITS });
  });
});
