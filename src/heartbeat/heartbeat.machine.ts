/** The heartbeat: an XState machine beating sense → think → integrate → sleep, dormant while the budget sleeps, supervising the domain actors. */
import type { DoneActorEvent, ErrorActorEvent } from 'xstate';
import { initialContext, type HeartbeatInput } from './heartbeat.context.js';
import { heartbeatSetup } from './heartbeat.setup.js';
import { settleActorInput, thinkActorInput } from './phase-inputs.js';

export type { HeartbeatInput };

/** The heartbeat machine; create it with `createActor(heartbeatMachine, { input, clock })`. */
export const heartbeatMachine = heartbeatSetup.createMachine({
  id: 'heartbeat',
  context: ({ input, spawn }) => initialContext(input, spawn),
  initial: 'boot',
  on: {
    USER_MESSAGE: { actions: { type: 'receiveMessage', params: ({ event }) => ({ message: event.message }) } },
    // A tool call was decided: the turn waiting on it is thought about now, like a new message.
    TOOL_DECIDED: { actions: 'requestWake' },
    TASK_CANCEL: { actions: { type: 'cancelTask', params: ({ event }) => ({ id: event.id, reason: event.reason }) } },
    LEDGER_FAILED: {
      guard: 'ledgerUp',
      actions: { type: 'ledgerFailed', params: ({ event }) => ({ reason: event.reason }) },
    },
    LEDGER_PROBED: { actions: { type: 'ledgerProbed', params: ({ event }) => ({ ok: event.ok }) } },
    // Supervision: a child's ending names it (`actorId`); the think and settle endings are taken by their states first.
    'xstate.error.actor.*': {
      actions: {
        type: 'superviseFailedChild',
        params: ({ event }: { event: ErrorActorEvent }) => ({ childId: event.actorId, ended: event.error }),
      },
    },
    'xstate.done.actor.*': {
      actions: {
        type: 'recordChildDone',
        params: ({ event }: { event: DoneActorEvent }) => ({ childId: event.actorId, ended: event.output }),
      },
    },
  },
  states: {
    // Decides, from the budget, whether the agent starts (or resumes) awake or asleep.
    boot: {
      always: [
        { guard: 'wakeAtBoot', target: 'running', actions: 'wakeForDueReason' },
        { guard: 'asleepAtBoot', target: 'dormant', actions: 'fallAsleepAtBoot' },
        { target: 'running' },
      ],
    },
    running: {
      // The first beat comes one interval after start, so a fresh or restored agent is observable as it was.
      initial: 'sleep',
      on: {
        PAUSE: { actions: 'requestPause' },
        // Spend moved outside this beat's think (a task, a lower cap): at the hard stop, stop at once, think and all.
        BUDGET_CHECK: {
          guard: 'hardStopReached',
          target: 'dormant',
          actions: ['stopSwarmTasks', 'fallAsleepAtHardStop'],
        },
      },
      states: {
        sense: {
          entry: 'sense',
          // An idle beat ends right here, in the same step: the cheapest path through the machine.
          always: [
            { guard: 'hasPlan', target: 'think' },
            { guard: 'sleepAfterBeat', target: '#heartbeat.dormant', actions: ['finishBeat', 'fallAsleepAfterBeat'] },
            // With the ledger down nothing thinks; one small write per beat (at most one in flight) tries it.
            { guard: 'probeLedger', target: 'sleep', actions: ['spawnLedgerProbe', 'finishBeat'] },
            { target: 'sleep', actions: 'finishBeat' },
          ],
        },
        think: {
          entry: 'prepareThink',
          invoke: {
            id: 'think',
            src: 'think',
            input: ({ context }) => thinkActorInput(context),
            onDone: {
              target: 'integrate',
              actions: { type: 'thinkDone', params: ({ event }) => ({ result: event.output }) },
            },
            // Every ending goes through integrate, which settles the turns the think carried.
            onError: {
              target: 'integrate',
              actions: { type: 'thinkFailed', params: ({ event }) => ({ error: event.error }) },
            },
          },
          on: {
            PREEMPT: { actions: { type: 'preemptThink', params: ({ event }) => ({ reason: event.reason }) } },
          },
          after: {
            stuckDelay: { target: 'integrate', actions: 'thinkStuck' },
          },
        },
        // Settling the think (only beats that thought get here): its actions, replies and the turns it carried.
        integrate: {
          invoke: {
            id: 'settle',
            src: 'settle',
            input: ({ context }) => settleActorInput(context),
            onDone: {
              target: 'finish',
              actions: { type: 'thinkSettled', params: ({ event }) => ({ outcome: event.output }) },
            },
            onError: {
              target: 'finish',
              actions: [
                { type: 'logSettleFailure', params: ({ event }) => ({ error: event.error }) },
                'markBeatFailed',
              ],
            },
          },
        },
        // The end of a beat that thought (or tried to): finish it, then sleep or, for the budget, go dormant.
        finish: {
          always: [
            { guard: 'sleepAfterBeat', target: '#heartbeat.dormant', actions: ['finishBeat', 'fallAsleepAfterBeat'] },
            { target: 'sleep', actions: 'finishBeat' },
          ],
        },
        sleep: {
          always: [
            { guard: 'pauseRequested', target: '#heartbeat.paused' },
            // A message arrived: think about it now, whatever the interval.
            { guard: 'wakeRequested', target: 'sense' },
          ],
          after: { beatDelay: { target: 'sense' } },
          on: {
            PAUSE: { target: '#heartbeat.paused' },
            CHECKPOINT_NOW: { actions: { type: 'checkpointAtBoundary', params: { phase: 'sleep' } } },
          },
        },
      },
    },
    // Asleep for the budget: beats slow to the longest interval (never past midnight), nothing thinks; events and RPC go on.
    dormant: {
      initial: 'resting',
      // A pause asked for during the beat that fell asleep is taken here, at its boundary, like one from sleep.
      always: { guard: 'pauseRequested', target: 'paused' },
      on: {
        PAUSE: { target: '#heartbeat.paused' },
        CHECKPOINT_NOW: { actions: { type: 'checkpointAtBoundary', params: { phase: 'dormant' } } },
        WAKE_CHECK: {
          guard: 'roomToWake',
          target: 'running',
          actions: [{ type: 'wakeUp', params: ({ event }) => ({ reason: event.reason }) }, 'wakeForPendingWork'],
        },
      },
      states: {
        resting: { after: { dormantDelay: { target: 'beat' } } },
        beat: {
          entry: 'dormantBeat',
          always: [
            { guard: 'wakeDue', target: '#heartbeat.running', actions: 'wakeForDueReason' },
            { target: 'resting' },
          ],
        },
      },
    },
    paused: {
      entry: 'clearPauseRequest',
      on: {
        // Back through boot: the (possibly restored) budget decides between awake and asleep.
        RESUME: { target: 'boot' },
        CHECKPOINT_NOW: { actions: { type: 'checkpointAtBoundary', params: { phase: 'sleep' } } },
        // A restore: the running tasks and the domain actors stop, and the seed's actors start in their place.
        APPLY_SEED: {
          actions: [
            'stopSwarmTasks',
            'stopDomainActors',
            { type: 'applySeed', params: ({ event }) => ({ seed: event.seed }) },
          ],
        },
      },
    },
  },
});
