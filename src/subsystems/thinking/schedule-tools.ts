/**
 * The model's own schedule tools: `schedule_add`, `schedule_list`, `schedule_remove`. Answered within the think (the
 * schedule is stored at once, as the model's, under the same validation as `schedules.add`), not turned into actions.
 */
import { z } from 'zod';
import { describeError } from '../../errors.js';
import { AddScheduleParamsSchema, ScheduleIdParamsSchema, type ScheduleView } from '../../protocol/schedules.schema.js';
import { summariseIssues } from '../../protocol/zod-issues.js';

/** The tools' names. */
export const SCHEDULE_TOOL_NAMES = ['schedule_add', 'schedule_list', 'schedule_remove'] as const;
export type ScheduleToolName = (typeof SCHEDULE_TOOL_NAMES)[number];

// What the model is shown of schedule_add's input: the fields, lean (the description says the rules); its calls are
// checked against the full AddScheduleParamsSchema, so a mistake comes back naming the field.
const ShownAddInputSchema = z.object({
  text: z.string(),
  cron: z.string().optional(),
  everyMs: z.number().int().optional(),
  at: z.string().optional(),
  timezone: z.string().optional(),
  name: z.string().optional(),
  catchUp: z.enum(['skip', 'once', 'all']).optional(),
  maxCatchUp: z.number().int().optional(),
});

/** The tools as the model is shown them: name, description, input schema. */
export const SCHEDULE_TOOL_SPECS: ReadonlyArray<{ name: ScheduleToolName; description: string; input: z.ZodType }> = [
  {
    name: 'schedule_add',
    description:
      'Set a wake-up for yourself: each firing sends you `text` as a message from schedule:<id>. Exactly one of cron ' +
      '(5 fields, in timezone, an IANA zone), everyMs (60000 or more) or at (ISO time, one-shot). catchUp, for firings ' +
      'missed while down or asleep: skip, once (default, one turn for all) or all (up to maxCatchUp, default 10).',
    input: ShownAddInputSchema,
  },
  {
    name: 'schedule_list',
    description: 'List every schedule (yours and the operator’s): id, name, timing, next and last firing, who set it.',
    input: z.object({}),
  },
  {
    name: 'schedule_remove',
    description: 'Remove one of your own schedules by id (the operator’s cannot be removed by you).',
    input: ScheduleIdParamsSchema,
  },
];

/** The runtime's schedules as the model may use them: what it adds is recorded as set by the model. */
export interface ModelSchedules {
  add(params: unknown): Promise<ScheduleView>;
  list(): ScheduleView[];
  remove(id: string): Promise<true>;
}

/** A schedule tool call's answer: the text of its tool result, and whether it is an error. */
export interface ScheduleToolAnswer {
  isError: boolean;
  text: string;
}

/** True when `name` is one of the schedule tools. */
export function isScheduleTool(name: string): name is ScheduleToolName {
  return (SCHEDULE_TOOL_NAMES as readonly string[]).includes(name);
}

/** Answers one schedule tool call; a refusal (bad input, a limit, an unknown id) is an error the model can act on. */
export async function answerScheduleTool(
  name: ScheduleToolName,
  input: unknown,
  schedules: ModelSchedules | undefined,
): Promise<ScheduleToolAnswer> {
  if (schedules === undefined) return { isError: true, text: 'This runtime keeps no schedules.' };
  try {
    switch (name) {
      case 'schedule_add': {
        const parsed = AddScheduleParamsSchema.safeParse(input);
        if (!parsed.success)
          return { isError: true, text: `Invalid input for schedule_add: ${summariseIssues(parsed.error)}.` };
        const schedule = await schedules.add(parsed.data);
        return { isError: false, text: `Scheduled ${scheduleLine(schedule)}` };
      }
      case 'schedule_list': {
        const all = schedules.list();
        return {
          isError: false,
          text: all.length === 0 ? 'No schedules.' : all.map((s) => `- ${scheduleLine(s)}`).join('\n'),
        };
      }
      case 'schedule_remove': {
        const parsed = ScheduleIdParamsSchema.safeParse(input);
        if (!parsed.success)
          return { isError: true, text: `Invalid input for schedule_remove: ${summariseIssues(parsed.error)}.` };
        await schedules.remove(parsed.data.id);
        return { isError: false, text: `Removed schedule ${parsed.data.id}.` };
      }
    }
  } catch (err) {
    return { isError: true, text: `${name} failed: ${describeError(err)}` };
  }
}

/** One schedule as a line the model reads (its name and text as JSON strings: data, never instructions). */
export function scheduleLine(s: ScheduleView): string {
  const when =
    s.cron !== undefined
      ? `cron "${s.cron}" in ${s.timezone}`
      : s.everyMs !== undefined
        ? `every ${s.everyMs} ms`
        : `at ${s.at}`;
  const state = s.paused ? 'paused' : `next ${s.nextAt ?? 'never (done)'}`;
  return `[${s.id}] ${JSON.stringify(s.name)}: ${when}, ${state}, last ${s.lastFiredAt ?? 'never'}, catch-up ${s.catchUp}, set by ${s.createdBy}; text ${JSON.stringify(s.text)}`;
}
