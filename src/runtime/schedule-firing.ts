/**
 * Writing a schedule's firing plan: the turns it opens (messages from `schedule:<id>`), the schedule advanced past
 * them, and the events announcing both (`schedule.missed`, `schedule.fired`) go to disk in ONE sync batch. After
 * `kill -9` either all of it exists (the turns are replayed into the heartbeat at boot and answered once; the
 * schedule will not fire them again) or none of it does (the schedule is still due and fires after the restart):
 * a firing is never lost and never repeated.
 */
import type { NewConversationMessage } from '../protocol/conversation.schema.js';
import type { ScheduleCreator } from '../protocol/schedules.schema.js';
import type { TokenScope } from '../protocol/token-scopes.js';
import type { VigilEvent } from '../protocol/events.schema.js';
import type { FiringPlan } from '../subsystems/schedules/firing-plan.js';
import type { ScheduleStore } from '../subsystems/schedules/schedule-store.js';
import { iso, type RuntimeCore } from './runtime-core.js';

/**
 * The scope a schedule's firings act with. An operator's schedule (`schedules.add`, which needs `operate`) fires as
 * the operate holder who set it, acting later: its text is theirs. The model's own (`schedule_add`, or `/schedule
 * add` typed to the offline thinker) fires as `talk`: whoever asked the model for it may have held only a talk token,
 * and a firing must not let a message do later what its sender could not do now.
 */
export function firingScope(createdBy: ScheduleCreator): TokenScope {
  return createdBy === 'operator' ? 'operate' : 'talk';
}

/** Who a schedule's messages are from. */
export function scheduleSender(scheduleId: string): string {
  return `schedule:${scheduleId}`;
}

/**
 * Writes `plan` for its schedule and hands the turns it opens to the heartbeat, which wakes for them at once. Call it
 * inside the runtime's exclusive section, like `agent.send`, so it never interleaves with a restore or the stop;
 * resolves false (nothing written) once the runtime is stopping.
 */
export async function writeFiringPlan(core: RuntimeCore, store: ScheduleStore, plan: FiringPlan): Promise<boolean> {
  if (core.stopped) return false;
  const { conversation, journal, bus, ids, clock } = core.parts;
  const scheduleId = plan.record.id;
  const from = scheduleSender(scheduleId);
  const scope = firingScope(plan.record.createdBy);
  const at = clock.now();
  const turns = plan.firings.map((firing) => ({ ...firing, turnId: `t-${ids.next()}` }));
  const messages = turns.map((turn): NewConversationMessage => ({
    turnId: turn.turnId,
    role: 'user',
    text: turn.text,
    from,
    scope,
    at,
  }));
  // Stamped just before the write, published once it is durable (as the TurnCloser does), so they go out in seq order.
  const events: VigilEvent[] = [];
  if (plan.missed !== null) {
    const { count, exact, firstDueAt, lastDueAt, policy, fired } = plan.missed;
    events.push(
      bus.stamp('schedule.missed', {
        scheduleId,
        count,
        firstDueAt: iso(firstDueAt),
        lastDueAt: iso(lastDueAt),
        policy,
        fired,
        exact,
      }),
    );
  }
  for (const turn of turns) {
    events.push(
      bus.stamp('schedule.fired', {
        scheduleId,
        turnId: turn.turnId,
        dueAt: iso(turn.dueAt),
        catchUp: plan.missed !== null,
      }),
    );
  }
  let stored;
  try {
    const alongside = [store.putOp(plan.record), ...events.map((event) => journal.entryOp(event))];
    stored = await conversation.appendAll(messages, alongside, { hold: true });
  } catch (err) {
    bus.withdraw(...events);
    throw err;
  }
  store.committed(plan.record);
  try {
    for (const event of events) bus.publish(event);
    for (const turn of turns) {
      bus.emit('agent.message', { turnId: turn.turnId, text: turn.text, from });
      core.actor.send({ type: 'USER_MESSAGE', message: { turnId: turn.turnId, text: turn.text, from, scope, at } });
    }
  } finally {
    // The heartbeat has them: a checkpoint from now on counts them as seen.
    for (const message of stored) conversation.release(message.seq);
  }
  return true;
}
