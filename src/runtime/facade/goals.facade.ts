/** The facade's goals area: `goals.list`, `goals.add`, `goals.complete`. */
import { findGoal } from '../../actors/goals/goals.reducer.js';
import type { Goal } from '../../actors/goals/goals.schema.js';
import { VigilError } from '../../errors.js';
import type { AddGoalParams, GoalView } from '../../protocol/goals.schema.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

const ORDER = { active: 0, completed: 1, abandoned: 2 } as const;

/** Goals as the facade offers them. */
export class GoalsFacade {
  constructor(private readonly core: RuntimeCore) {}

  /** `goals.list`: every goal, active first. */
  list(): GoalView[] {
    const { goals } = this.core.context().refs.goals.getSnapshot().context;
    return [...goals].sort((a, b) => ORDER[a.status] - ORDER[b.status]).map(goalView);
  }

  /** `goals.add`: the new goal. */
  add(params: AddGoalParams): GoalView {
    this.core.assertRunning();
    const { refs } = this.core.context();
    const { clock, ids, bus } = this.core.parts;
    const id = `g-${ids.next()}`;
    refs.goals.send({
      type: 'goal.add',
      at: clock.now(),
      goal: {
        id,
        title: params.title,
        ...(params.priority === undefined ? {} : { priority: params.priority }),
        ...(params.dueAt === undefined ? {} : { dueAt: Date.parse(params.dueAt) }),
      },
    });
    const goal = findGoal(refs.goals.getSnapshot().context, id);
    if (goal === undefined)
      throw new VigilError('INTERNAL', `Goal ${id} was not added (the goals actor is restarting).`);
    bus.emit('goal.added', { goalId: id, title: goal.title, priority: goal.priority });
    return goalView(goal);
  }

  /** `goals.complete`: the completed goal; GOAL_NOT_FOUND for an unknown id. */
  complete(id: string): GoalView {
    this.core.assertRunning();
    const { refs } = this.core.context();
    if (findGoal(refs.goals.getSnapshot().context, id) === undefined) {
      throw new VigilError('GOAL_NOT_FOUND', `No goal with id ${JSON.stringify(id)}.`, { data: { id } });
    }
    refs.goals.send({ type: 'goal.complete', at: this.core.parts.clock.now(), id });
    const goal = findGoal(refs.goals.getSnapshot().context, id)!;
    this.core.parts.bus.emit('goal.updated', { goalId: id, progress: goal.progress, status: goal.status });
    return goalView(goal);
  }
}

function goalView(goal: Goal): GoalView {
  return {
    id: goal.id,
    title: goal.title,
    priority: goal.priority,
    progress: goal.progress,
    status: goal.status,
    ...(goal.dueAt === undefined ? {} : { dueAt: iso(goal.dueAt) }),
  };
}
