/** Vigil's own tools, one per think action, whatever the provider: zod input schemas, their JSON Schema, and call → action. */
import { z } from 'zod';
import { GoalPrioritySchema } from '../../actors/goals/goals.schema.js';
import { KeptMemorySourceSchema } from '../../protocol/memory.schema.js';
import { RECALL_TOOL_DESCRIPTION, RECALL_TOOL_NAME, RecallInputSchema } from './recall-tool.js';
import { SCHEDULE_TOOL_SPECS } from './schedule-tools.js';
import type { ThinkAction } from './thinker.schema.js';

/** What a tool call is checked against besides its schema: the turns it may answer and the goals it may name. */
export interface ToolContext {
  turnIds: readonly string[];
  goalIds: readonly string[];
  /** The MCP tools a sub-agent task may be given (those offered now, none needing approval); none when absent. */
  taskTools?: readonly string[];
}

/** One tool: its name and description, its zod input schema, a context check, and the action it becomes. */
interface ToolSpec<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: S;
  /** A problem with otherwise valid input, in words the model can act on; undefined when there is none. */
  check?: (data: z.output<S>, ctx: ToolContext) => string | undefined;
  toAction: (data: z.output<S>) => ThinkAction;
}

// A generic identity, so each spec's callbacks see their own schema's output type.
const tool = <S extends z.ZodType>(spec: ToolSpec<S>): ToolSpec => spec;

const unit = (what: string) => z.number().min(0).max(1).describe(what);
const shift = (what: string) => z.number().min(-1).max(1).optional().describe(what);
const oneOf = (label: string, value: string, known: readonly string[]) => {
  if (known.includes(value)) return undefined;
  const choices = known.map((k) => JSON.stringify(k)).join(', ') || '(none)';
  return `${label} ${JSON.stringify(value)} is not known; use one of: ${choices}.`;
};

const AFFECT_KEYS = ['valence', 'arousal', 'dominance', 'certainty', 'goalCongruence'] as const;

const TOOL_SPECS: readonly ToolSpec[] = [
  tool({
    name: 'reply',
    description:
      'Send a message to the user. The only way the user sees anything you say; answer every pending message with it.',
    input: z.object({
      turnId: z.string().min(1).describe('The turn id of the pending message you are answering.'),
      text: z.string().min(1).describe('The reply, as the user should read it.'),
    }),
    check: (d, ctx) => oneOf('turnId', d.turnId, ctx.turnIds),
    toAction: (d) => ({ type: 'reply', turnId: d.turnId, text: d.text }),
  }),
  tool({
    name: 'remember',
    description:
      'Keep a fact, decision or commitment in working memory; it is shown to you in later thinks while it stays salient. ' +
      'What leaves working memory with salience 0.5 or more is kept in long-term memory, where recall finds it; ' +
      'keep: true keeps it there at once.',
    input: z.object({
      content: z
        .string()
        .min(1)
        .describe('What to remember, self-contained (it will be read without this conversation).'),
      salience: unit('How much it matters, 0 (trivia) to 1 (must not be forgotten).'),
      keep: z
        .boolean()
        .optional()
        .describe('Also keep it in long-term memory now: facts about the user, commitments, decisions.'),
      source: KeptMemorySourceSchema.optional().describe(
        'Where the fact came from, recorded with it in long-term memory: a tool result (tool), a task result (task) or the conversation (conversation).',
      ),
    }),
    toAction: (d) => ({
      type: 'remember',
      content: d.content,
      salience: d.salience,
      ...(d.keep === true ? { keep: true } : {}),
      ...(d.source === undefined ? {} : { source: d.source }),
    }),
  }),
  tool({
    name: 'feel',
    description:
      'Record how what just happened moves your affect; each field is a change from -1 to 1, give only those that move.',
    input: z
      .object({
        valence: shift('Pleasant (+) or unpleasant (-).'),
        arousal: shift('More (+) or less (-) activated.'),
        dominance: shift('More (+) or less (-) in control.'),
        certainty: shift('More (+) or less (-) sure.'),
        goalCongruence: shift('Helps (+) or hinders (-) your goals.'),
        intensity: unit('How strongly to apply the change, 0 to 1 (default 1).').optional(),
      })
      .refine((d) => AFFECT_KEYS.some((k) => d[k] !== undefined), {
        message: 'give at least one of ' + AFFECT_KEYS.join(', '),
      }),
    toAction: (d) => {
      const delta = Object.fromEntries(AFFECT_KEYS.filter((k) => d[k] !== undefined).map((k) => [k, d[k]]));
      return d.intensity === undefined ? { type: 'feel', delta } : { type: 'feel', delta, intensity: d.intensity };
    },
  }),
  tool({
    name: 'goal_add',
    description: 'Adopt a new goal: a concrete outcome you can verify. It gets its id after this think.',
    input: z.object({
      title: z.string().trim().min(1).describe('The outcome, short and checkable.'),
      priority: GoalPrioritySchema.optional().describe('1 (lowest) to 10 (highest); 5 when omitted.'),
      dueAt: z.iso
        .datetime({ offset: true })
        .optional()
        .describe('When it is due, ISO-8601 with a zone, e.g. 2026-01-31T09:00:00Z.'),
    }),
    toAction: (d) => ({
      type: 'goal_add',
      title: d.title,
      ...(d.priority === undefined ? {} : { priority: d.priority }),
      ...(d.dueAt === undefined ? {} : { dueAt: Date.parse(d.dueAt) }),
    }),
  }),
  tool({
    name: 'goal_progress',
    description: 'Record progress on a goal after a step you have verified; reaching 1 completes it.',
    input: z.object({
      goalId: z.string().min(1).describe('The id of an existing goal.'),
      delta: z.number().min(-1).max(1).describe('Change in progress as a fraction of the whole goal, e.g. 0.2.'),
    }),
    check: (d, ctx) => oneOf('goalId', d.goalId, ctx.goalIds),
    toAction: (d) => ({ type: 'goal_progress', goalId: d.goalId, delta: d.delta }),
  }),
  tool({
    name: 'goal_complete',
    description: 'Mark a goal as done, once its outcome is verified.',
    input: z.object({ goalId: z.string().min(1).describe('The id of an existing goal.') }),
    check: (d, ctx) => oneOf('goalId', d.goalId, ctx.goalIds),
    toAction: (d) => ({ type: 'goal_complete', goalId: d.goalId }),
  }),
  tool({
    name: 'spawn_task',
    description:
      'Start a sub-agent on a self-contained task; its result arrives in a later think. It may act with the MCP tools you give it ' +
      "(mcp__SERVER__TOOL names; tools that need an operator's approval cannot be given to tasks), within a deadline and a money cap.",
    input: z.object({
      prompt: z.string().trim().min(1).describe('Everything the sub-agent needs: it sees nothing else.'),
      tools: z
        .array(z.string().min(1))
        .max(64)
        .optional()
        .describe('Names of MCP tools (mcp__SERVER__TOOL) the sub-agent may call; none when omitted.'),
      deadlineSeconds: z
        .number()
        .int()
        .min(1)
        .max(86_400)
        .optional()
        .describe('How long it may run once started; the configured default when omitted.'),
      maxCostUsd: z
        .number()
        .positive()
        .max(1000)
        .optional()
        .describe('The most its model calls may cost in USD; the configured default when omitted.'),
    }),
    check: (d, ctx) => {
      const offered = ctx.taskTools ?? [];
      const unknown = (d.tools ?? []).filter((name) => !offered.includes(name));
      if (unknown.length === 0) return undefined;
      const choices = offered.map((k) => JSON.stringify(k)).join(', ') || '(none)';
      return `tools ${unknown.map((n) => JSON.stringify(n)).join(', ')} cannot be given to a task; use some of: ${choices}.`;
    },
    toAction: (d) => ({
      type: 'spawn_task',
      prompt: d.prompt,
      ...(d.tools === undefined || d.tools.length === 0 ? {} : { tools: [...new Set(d.tools)].sort() }),
      ...(d.deadlineSeconds === undefined ? {} : { deadlineMs: d.deadlineSeconds * 1000 }),
      ...(d.maxCostUsd === undefined ? {} : { maxCostMicroUsd: Math.max(1, Math.round(d.maxCostUsd * 1_000_000)) }),
    }),
  }),
];

/** JSON Schema for a tool's input; `$schema` is dropped because the model APIs want a bare object schema. */
function inputSchema(schema: z.ZodType): { type: 'object'; [key: string]: unknown } {
  const { $schema: _dropped, ...json } = z.toJSONSchema(schema) as Record<string, unknown>;
  return { ...json, type: 'object' };
}

/** One of Vigil's own tools as any provider is shown it: its name, what it does and its input's JSON Schema. */
export interface OwnToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: { type: 'object'; [key: string]: unknown };
}

/** Vigil's own tools in the order every request lists them, built once so every request sends the same bytes. */
export const OWN_TOOL_DEFINITIONS: readonly OwnToolDefinition[] = [
  ...TOOL_SPECS.map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: inputSchema(spec.input),
  })),
  // Answered within the think from long-term memory (recall-tool.ts), not turned into an action.
  { name: RECALL_TOOL_NAME, description: RECALL_TOOL_DESCRIPTION, inputSchema: inputSchema(RecallInputSchema) },
  // Answered within the think from the runtime's schedules (schedule-tools.ts).
  ...SCHEDULE_TOOL_SPECS.map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: inputSchema(spec.input),
  })),
];

/** A tool call's outcome: the action it becomes, or the error text to send back as an is_error tool_result. */
export type ToolOutcome = { ok: true; action: ThinkAction } | { ok: false; error: string };

/** Validates one tool_use against its schema and the context, turning it into a think action. */
export function toolUseToAction(name: string, input: unknown, ctx: ToolContext): ToolOutcome {
  const spec = TOOL_SPECS.find((s) => s.name === name);
  if (spec === undefined) {
    return {
      ok: false,
      error: `Unknown tool ${JSON.stringify(name)}; the tools are ${TOOL_SPECS.map((s) => s.name).join(', ')}.`,
    };
  }
  const parsed = spec.input.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
    return { ok: false, error: `Invalid input for ${name}: ${issues.join('; ')}.` };
  }
  const problem = spec.check?.(parsed.data, ctx);
  if (problem !== undefined) return { ok: false, error: `Invalid input for ${name}: ${problem}` };
  return { ok: true, action: spec.toAction(parsed.data) };
}
