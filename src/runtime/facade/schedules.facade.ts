/** The facade's schedules area (CONTRACT §11): `schedules.add/list/remove/pause/resume`, for operators and for the model's own tools. */
import { VigilError } from '../../errors.js';
import {
  AddScheduleParamsSchema,
  DEFAULT_MAX_CATCH_UP,
  scheduleView,
  type ScheduleCreator,
  type ScheduleRecord,
  type ScheduleView,
} from '../../protocol/schedules.schema.js';
import { summariseIssues } from '../../protocol/zod-issues.js';
import { LATE_AFTER_MS } from '../../subsystems/schedules/firing-plan.js';
import type { ScheduleStore } from '../../subsystems/schedules/schedule-store.js';
import { cronProblem, nextDueAfter } from '../../subsystems/schedules/schedule-timing.js';
import type { RuntimeCore } from '../runtime-core.js';
import { ScheduleRunner } from '../schedule-runner.js';

/** The most schedules a data dir holds. */
export const MAX_SCHEDULES = 10_000;
/** The most live schedules (not finished one-shots) the model may have set at once. */
export const MAX_MODEL_SCHEDULES = 20;

/** Schedules as the facade offers them; the runner behind fires them. */
export class SchedulesFacade {
  private readonly runner: ScheduleRunner;

  constructor(
    private readonly core: RuntimeCore,
    private readonly store: ScheduleStore,
  ) {
    this.runner = new ScheduleRunner(core, store);
    // The model's own tools: what it adds is its own (bounded), and it removes only its own.
    core.parts.deps.thinker.useSchedules?.({
      add: (params) => this.add(params, 'model'),
      list: () => this.list(),
      remove: (id) => this.remove(id, 'model'),
    });
  }

  /** Starts firing (after the heartbeat started): first what fell due while down. */
  start(): void {
    this.runner.start();
  }

  /** Stops firing; resolves once a firing in progress is written. */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** Resolves once every firing pass asked for so far has run. */
  settled(): Promise<void> {
    return this.runner.settled();
  }

  /** `schedules.list`: every schedule, oldest first. */
  list(): ScheduleView[] {
    return this.store.list().map(scheduleView);
  }

  /** `schedules.add`: validated (a field that is wrong is named, as -32602), stored synced, and armed. */
  async add(params: unknown, createdBy: ScheduleCreator = 'operator'): Promise<ScheduleView> {
    this.core.assertRunning();
    const record = this.newRecord(params, createdBy);
    return this.runner.change(async () => {
      const live = this.store.list().filter((r) => r.createdBy === 'model' && r.nextAt !== null).length;
      if (createdBy === 'model' && live >= MAX_MODEL_SCHEDULES) {
        throw new VigilError(
          'SCHEDULE_LIMIT',
          `The model may keep at most ${MAX_MODEL_SCHEDULES} schedules; remove one first.`,
          { data: { limit: MAX_MODEL_SCHEDULES } },
        );
      }
      if (this.store.size >= MAX_SCHEDULES) {
        throw new VigilError('SCHEDULE_LIMIT', `At most ${MAX_SCHEDULES} schedules may be stored; remove one first.`, {
          data: { limit: MAX_SCHEDULES },
        });
      }
      await this.store.save(record);
      this.changed(record, 'added');
      return scheduleView(record);
    });
  }

  /** `schedules.remove`: true; SCHEDULE_NOT_FOUND for an unknown id (or, for the model, one it did not set). */
  async remove(id: string, by: ScheduleCreator = 'operator'): Promise<true> {
    this.core.assertRunning();
    return this.runner.change(async () => {
      const record = this.find(id, by);
      await this.store.remove(id);
      this.changed(record, 'removed');
      return true as const;
    });
  }

  /** `schedules.pause`: the schedule, which fires no more until resumed (nothing is counted missed meanwhile). */
  pause(id: string): Promise<ScheduleView> {
    return this.update(id, (record) => (record.paused ? record : { ...record, paused: true }), 'paused');
  }

  /** `schedules.resume`: the schedule, next due after now (a one-shot keeps its time: past, it catches up). */
  resume(id: string): Promise<ScheduleView> {
    return this.update(
      id,
      (record) => {
        if (!record.paused) return record;
        const now = this.core.parts.clock.now();
        const nextAt =
          record.at !== undefined ? (record.nextAt === null ? null : record.at) : nextDueAfter(record, now);
        return { ...record, paused: false, nextAt };
      },
      'resumed',
    );
  }

  private async update(
    id: string,
    change: (record: ScheduleRecord) => ScheduleRecord,
    what: 'paused' | 'resumed',
  ): Promise<ScheduleView> {
    this.core.assertRunning();
    return this.runner.change(async () => {
      const record = this.find(id, 'operator');
      const next = change(record);
      if (next !== record) {
        await this.store.save(next);
        this.changed(next, what);
      }
      return scheduleView(next);
    });
  }

  private find(id: string, by: ScheduleCreator): ScheduleRecord {
    const record = this.store.get(id);
    if (record === undefined || (by === 'model' && record.createdBy !== 'model')) {
      const whose = by === 'model' && record !== undefined ? ' set by the model (the operator set this one)' : '';
      throw new VigilError('SCHEDULE_NOT_FOUND', `No schedule with id ${JSON.stringify(id)}${whose}.`, {
        data: { id },
      });
    }
    return record;
  }

  private changed(record: ScheduleRecord, change: 'added' | 'removed' | 'paused' | 'resumed'): void {
    this.core.parts.bus.emit('schedule.changed', { scheduleId: record.id, change, createdBy: record.createdBy });
  }

  // Parses at the edge (the gateway has already, a library caller or the model has not), then checks what a schema cannot.
  private newRecord(input: unknown, createdBy: ScheduleCreator): ScheduleRecord {
    const parsed = AddScheduleParamsSchema.safeParse(input);
    if (!parsed.success) throw invalid(parsed.error.issues, summariseIssues(parsed.error));
    const params = parsed.data;
    const { clock, ids } = this.core.parts;
    const now = clock.now();
    const timezone = params.timezone ?? this.store.defaultTimezone;
    if (params.cron !== undefined) {
      const problem = cronProblem(params.cron, timezone, now);
      if (problem !== undefined)
        throw invalidField('cron', `${JSON.stringify(params.cron)} is not a cron expression Vigil can use: ${problem}`);
    }
    const at = params.at === undefined ? undefined : Date.parse(params.at);
    if (at !== undefined && at < now - LATE_AFTER_MS) throw invalidField('at', `${params.at} is in the past`);
    const timing = {
      timezone,
      ...(params.cron === undefined ? {} : { cron: params.cron }),
      ...(params.everyMs === undefined ? {} : { everyMs: params.everyMs }),
      ...(at === undefined ? {} : { at }),
    };
    return {
      id: `s-${ids.next()}`,
      name: params.name ?? defaultName(params.text),
      text: params.text,
      ...timing,
      catchUp: params.catchUp ?? 'once',
      maxCatchUp: params.maxCatchUp ?? DEFAULT_MAX_CATCH_UP,
      paused: false,
      createdBy,
      createdAt: now,
      // A one-shot a few seconds in the past (clocks disagree) fires at once, on time.
      nextAt: at ?? nextDueAfter(timing, now),
      lastFiredAt: null,
      fired: 0,
      missed: 0,
    };
  }
}

function defaultName(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length <= 60 ? line : `${line.slice(0, 59)}…`;
}

/** A params issue as -32602 carries it in `data` (the zod issues, or one of the same shape). */
interface ParamsIssue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
}

function invalid(issues: readonly ParamsIssue[], summary: string): VigilError {
  return new VigilError('RPC_INVALID_PARAMS', `Invalid params for schedules.add: ${summary}.`, {
    data: issues.map((issue) => ({ ...issue })),
  });
}

function invalidField(field: string, message: string): VigilError {
  return invalid([{ code: 'custom', path: [field], message }], `${field}: ${message}`);
}
