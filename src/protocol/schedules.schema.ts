/** Schedules (CONTRACT §11): the stored record, its view on the wire, and the `schedules.*` params. */
import { z } from 'zod';
import { isoTime } from './iso-time.js';
import { isValidTimeZone } from './time-zone.js';

/** What happens to firings that fell due while the agent could not fire them (down, asleep, a clock jump). */
export const SCHEDULE_CATCH_UP_POLICIES = ['skip', 'once', 'all'] as const;
export const ScheduleCatchUpSchema = z.enum(SCHEDULE_CATCH_UP_POLICIES, { error: 'expected "skip", "once" or "all"' });
export type ScheduleCatchUp = z.infer<typeof ScheduleCatchUpSchema>;

/** Who set a schedule: an operator (RPC, CLI, dashboard) or the model through its own tools. */
export const ScheduleCreatorSchema = z.enum(['operator', 'model']);
export type ScheduleCreator = z.infer<typeof ScheduleCreatorSchema>;

/** The shortest interval: a firing is a think, and a cron expression cannot fire more often either. */
export const MIN_SCHEDULE_EVERY_MS = 60_000;
/** The longest interval: a year. */
export const MAX_SCHEDULE_EVERY_MS = 366 * 24 * 3_600_000;
/** Default and ceiling of `maxCatchUp` (firings `all` fires after downtime). */
export const DEFAULT_MAX_CATCH_UP = 10;
export const MAX_CATCH_UP_LIMIT = 100;
/** The longest text a schedule sends. */
export const MAX_SCHEDULE_TEXT = 10_000;

const ZONE_ALLOWED = 'expected an IANA time zone such as UTC or Europe/Berlin';
const CRON_ALLOWED =
  'expected a cron expression of 5 fields (minute hour day-of-month month day-of-week), e.g. "0 8 * * 1-5"';

/** The fields of `schedules.add` before the "exactly one timing" rule. */
export const ScheduleFieldsSchema = z.object({
  text: z.string().trim().min(1).max(MAX_SCHEDULE_TEXT).describe('The message each firing sends the agent.'),
  cron: z
    .string()
    .trim()
    .regex(/^\S+(\s+\S+){4}$/, { error: CRON_ALLOWED })
    .optional()
    .describe('A 5-field cron expression, evaluated in `timezone`.'),
  everyMs: z
    .number()
    .int()
    .min(MIN_SCHEDULE_EVERY_MS, { error: `expected at least ${MIN_SCHEDULE_EVERY_MS} ms (one minute)` })
    .max(MAX_SCHEDULE_EVERY_MS)
    .optional()
    .describe('A fixed interval in milliseconds; the first firing is one interval after the schedule is added.'),
  at: isoTime.optional().describe('A one-shot time, ISO-8601 with a zone.'),
  timezone: z
    .string()
    .refine(isValidTimeZone, { error: ZONE_ALLOWED })
    .optional()
    .describe('IANA zone of `cron`; default VIGIL_TIMEZONE.'),
  name: z.string().trim().min(1).max(200).optional(),
  catchUp: ScheduleCatchUpSchema.optional().describe(
    'Firings missed while down or asleep: skip, once (default) or all.',
  ),
  maxCatchUp: z
    .number()
    .int()
    .min(1)
    .max(MAX_CATCH_UP_LIMIT)
    .optional()
    .describe(`How many missed firings "all" fires at most (default ${DEFAULT_MAX_CATCH_UP}).`),
});

/** `schedules.add` params: exactly one of `cron`, `everyMs` or `at`; a violation names the field. */
export const AddScheduleParamsSchema = ScheduleFieldsSchema.superRefine((params, ctx) => {
  const given = (['cron', 'everyMs', 'at'] as const).filter((key) => params[key] !== undefined);
  if (given.length === 1) return;
  const message =
    given.length === 0
      ? 'give exactly one of cron, everyMs or at'
      : `give only one of cron, everyMs or at, not ${given.join(' and ')}`;
  ctx.addIssue({ code: 'custom', path: [given[1] ?? 'cron'], message });
});
export type AddScheduleParams = z.infer<typeof AddScheduleParamsSchema>;

/** `schedules.remove`, `schedules.pause`, `schedules.resume` params. */
export const ScheduleIdParamsSchema = z.object({ id: z.string().min(1).max(200) });
export type ScheduleIdParams = z.infer<typeof ScheduleIdParamsSchema>;

/** A schedule as it is stored: times in epoch ms. */
export const ScheduleRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  text: z.string(),
  cron: z.string().optional(),
  everyMs: z.number().int().positive().optional(),
  at: z.number().optional(),
  timezone: z.string(),
  catchUp: ScheduleCatchUpSchema,
  maxCatchUp: z.number().int().positive(),
  paused: z.boolean(),
  createdBy: ScheduleCreatorSchema,
  createdAt: z.number(),
  /** The next firing not yet fired; null once a one-shot is done. Advanced in the same sync batch as the firing's turn. */
  nextAt: z.number().nullable(),
  lastFiredAt: z.number().nullable(),
  /** Turns fired, and firings reported missed (`schedule.missed` counts), over the schedule's life. */
  fired: z.number().int().nonnegative(),
  missed: z.number().int().nonnegative(),
});
export type ScheduleRecord = z.infer<typeof ScheduleRecordSchema>;

/** A schedule on the wire (`schedules.list` and the others' result). */
export const ScheduleViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  cron: z.string().optional(),
  everyMs: z.number().int().optional(),
  at: isoTime.optional(),
  timezone: z.string(),
  text: z.string(),
  catchUp: ScheduleCatchUpSchema,
  maxCatchUp: z.number().int(),
  /** The next firing; null while paused and once a one-shot is done. */
  nextAt: isoTime.nullable(),
  lastFiredAt: isoTime.nullable(),
  paused: z.boolean(),
  createdBy: ScheduleCreatorSchema,
  createdAt: isoTime,
  fired: z.number().int().nonnegative(),
  missed: z.number().int().nonnegative(),
});
export type ScheduleView = z.infer<typeof ScheduleViewSchema>;

/** The view of a stored record. */
export function scheduleView(record: ScheduleRecord): ScheduleView {
  const iso = (ms: number): string => new Date(ms).toISOString();
  return {
    id: record.id,
    name: record.name,
    ...(record.cron === undefined ? {} : { cron: record.cron }),
    ...(record.everyMs === undefined ? {} : { everyMs: record.everyMs }),
    ...(record.at === undefined ? {} : { at: iso(record.at) }),
    timezone: record.timezone,
    text: record.text,
    catchUp: record.catchUp,
    maxCatchUp: record.maxCatchUp,
    nextAt: record.paused || record.nextAt === null ? null : iso(record.nextAt),
    lastFiredAt: record.lastFiredAt === null ? null : iso(record.lastFiredAt),
    paused: record.paused,
    createdBy: record.createdBy,
    createdAt: iso(record.createdAt),
    fired: record.fired,
    missed: record.missed,
  };
}
