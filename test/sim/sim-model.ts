/**
 * The simulated model: an in-process `fetch` that answers like the Anthropic Messages API, for the real
 * AnthropicThinker and SDK. From its seed it answers a think's calls (replies by turn id, MCP and own tool calls over
 * several calls of a tool loop, text instead of a reply, silence), the summary's and sub-agents' calls, and fails as
 * the API does: refusals (400 prompt too long), overload and server errors, stalls in simulated time, calls that never
 * answer, and odd usage reports. Every request is recorded with its plain token estimate.
 */
import { estimateTokens } from '../../src/subsystems/thinking/token-estimate.js';
import type { SimWorldClock } from './sim-clock.js';
import { streamOf, type StreamedMessage } from './sim-model-stream.js';
import type { SimRandom } from './sim-random.js';

/** How often each fault happens, per request (0 to 1). */
export interface ModelFaults {
  refuse: number;
  overload: number;
  serverError: number;
  stall: number;
  hang: number;
  /** A usage report of 1,000,000 input tokens. */
  oddUsage: number;
}

/** No faults: the drain phase, where every turn must end. */
export const CALM: ModelFaults = { refuse: 0, overload: 0, serverError: 0, stall: 0, hang: 0, oddUsage: 0 };

/** How the model behaves: every kind of answer (the seeds), or an ordinary agent's day (the simulated year). */
export type ModelProfile = 'varied' | 'ordinary';

/** Options of the model. */
export interface SimModelOptions {
  faults: ModelFaults;
  /** The SDK's per-attempt timeout (VIGIL_ANTHROPIC_TIMEOUT_MS): a call that never answers fails after it. */
  timeoutMs: number;
  profile?: ModelProfile;
  /** Whether every request is kept in `requests` (the year keeps none: its heap is measured). */
  record?: boolean;
  /** Called with each request as it arrives. */
  onRequest?: (request: SimModelRequest) => void;
}

/** The MCP tools an ordinary agent calls (no approvals, nothing that hangs). */
const ORDINARY_TOOLS = new Set(['mcp__sim__lookup', 'mcp__sim__append_note']);

/** One request the model got, and how it answered. */
export interface SimModelRequest {
  index: number;
  incarnation: number;
  at: number;
  kind: 'think' | 'summary' | 'task';
  /** Calls of the tool loop before this one (0: a think's first call). */
  loopCall: number;
  /** The whole body's plain estimate (`estimateTokens`), the measure VIGIL_CONTEXT_TOKENS bounds. */
  plainTokens: number;
  /** The plain estimate of the fixed part (system and tools). */
  fixedTokens: number;
  pendingTurnIds: string[];
  outcome: string;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Simulated ms before the answer; 'hang': none comes, and the SDK's attempt times out (in simulated time). */
  delayMs: number | 'hang';
  outcome: string;
  /** The request asked for a stream (`stream: true`): a message answers as server-sent events. */
  stream?: boolean;
}

const SUMMARY_MARK = '# You keep the rolling summary';
const SUB_AGENT_MARK = '# You are a sub-agent';
const MODEL = 'claude-sonnet-5-5';

/** The model, shared by every incarnation (it is the outside world). */
export class SimModel {
  readonly requests: SimModelRequest[] = [];
  private readonly pending = new Map<number, Set<(err: unknown) => void>>();
  private faults: ModelFaults;
  private messageIds = 0;
  private count = 0;
  private readonly timeoutMs: number;

  constructor(
    private readonly world: SimWorldClock,
    private readonly rng: SimRandom,
    private readonly options: SimModelOptions,
  ) {
    this.faults = options.faults;
    this.timeoutMs = options.timeoutMs;
  }

  /** From now on, no faults. */
  calm(): void {
    this.faults = CALM;
  }

  /** The `fetch` of incarnation `incarnation`. */
  fetchFor(incarnation: number): typeof fetch {
    return async (_input: unknown, init?: RequestInit) => {
      const raw = typeof init?.body === 'string' ? init.body : '';
      const answer = this.answer(raw, incarnation);
      answer.stream = (JSON.parse(raw || '{}') as { stream?: unknown }).stream === true;
      return this.deliver(answer, incarnation, init?.signal ?? undefined);
    };
  }

  /** Incarnation `incarnation` died: its requests in flight fail as a dropped connection would. */
  cut(incarnation: number): void {
    const waiting = this.pending.get(incarnation);
    this.pending.delete(incarnation);
    for (const reject of waiting ?? []) reject(new TypeError('fetch failed: the process is gone'));
  }

  private deliver(answer: Answer, incarnation: number, signal: AbortSignal | undefined): Promise<Response> {
    const respond = () =>
      answer.stream === true && answer.status === 200
        ? this.streamed(answer.body as StreamedMessage, incarnation, signal)
        : new Response(JSON.stringify(answer.body), {
            status: answer.status,
            headers: { 'content-type': 'application/json', 'request-id': `req_sim_${this.count}`, ...answer.headers },
          });
    if (answer.delayMs === 0) return Promise.resolve(respond());
    return new Promise<Response>((resolve, reject) => {
      const waiting = this.pending.get(incarnation) ?? new Set();
      this.pending.set(incarnation, waiting);
      let timer: unknown;
      const settle = () => {
        waiting.delete(fail);
        if (timer !== undefined) this.world.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (err: unknown) => {
        settle();
        reject(err);
      };
      const onAbort = () => fail(new DOMException('This operation was aborted', 'AbortError'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.add(fail);
      // The SDK's own timeout runs in real time; here it runs in simulated time, with the error the SDK reads as one.
      const delay = answer.delayMs === 'hang' ? Number.POSITIVE_INFINITY : answer.delayMs;
      const late = delay > this.timeoutMs;
      timer = this.world.setTimeout(
        () => {
          timer = undefined;
          if (late) return fail(new Error('Request timed out.'));
          settle();
          resolve(respond());
        },
        Math.min(delay, this.timeoutMs),
      );
    });
  }

  /** A message as an event stream over simulated time, ended by the request's abort or its process's death. */
  private streamed(message: StreamedMessage, incarnation: number, signal: AbortSignal | undefined): Response {
    const waiting = this.pending.get(incarnation) ?? new Set();
    this.pending.set(incarnation, waiting);
    const stop = (err: unknown) => stream.stop(err);
    const onAbort = () => stop(new DOMException('This operation was aborted', 'AbortError'));
    const stream = streamOf(message, this.world, () => {
      waiting.delete(stop);
      signal?.removeEventListener('abort', onAbort);
    });
    waiting.add(stop);
    signal?.addEventListener('abort', onAbort, { once: true });
    return new Response(stream.body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'request-id': `req_sim_${this.count}` },
    });
  }

  private answer(raw: string, incarnation: number): Answer {
    const body = JSON.parse(raw) as RequestBody;
    const systemText = (body.system ?? []).map((block) => block.text).join('\n');
    const kind = systemText.includes(SUMMARY_MARK) ? 'summary' : systemText.includes(SUB_AGENT_MARK) ? 'task' : 'think';
    const loopCall = Math.floor(((body.messages ?? []).length - 1) / 2);
    const state = firstUserText(body);
    const pendingTurnIds = [...state.matchAll(/- turn (\S+) from /g)].map((m) => m[1]!);
    const record: SimModelRequest = {
      index: this.count++,
      incarnation,
      at: this.world.now(),
      kind,
      loopCall,
      plainTokens: estimateTokens(raw),
      fixedTokens: estimateTokens(JSON.stringify({ system: body.system ?? [], tools: body.tools ?? [] })),
      pendingTurnIds,
      outcome: '',
    };
    if (this.options.record !== false) this.requests.push(record);
    this.options.onRequest?.(record);
    const answer = this.decide(body, kind, loopCall, state, pendingTurnIds, raw);
    record.outcome = answer.outcome;
    return answer;
  }

  private decide(
    body: RequestBody,
    kind: SimModelRequest['kind'],
    loopCall: number,
    state: string,
    turns: string[],
    raw: string,
  ): Answer {
    const { rng, faults } = this;
    const latency = rng.chance(faults.stall) ? rng.int(5_000, 150_000) : rng.int(200, 3_000);
    if (rng.chance(faults.hang)) return { status: 200, body: null, delayMs: 'hang', outcome: 'hang' };
    if (rng.chance(faults.refuse)) {
      return {
        ...apiError(400, 'invalid_request_error', 'prompt is too long: 212345 tokens > 200000 maximum'),
        delayMs: latency,
        outcome: 'refused 400',
      };
    }
    if (rng.chance(faults.overload))
      return { ...apiError(529, 'overloaded_error', 'Overloaded'), delayMs: latency, outcome: 'overloaded 529' };
    if (rng.chance(faults.serverError))
      return { ...apiError(500, 'api_error', 'Internal server error'), delayMs: latency, outcome: 'error 500' };
    const odd = rng.chance(faults.oddUsage);
    const content =
      kind === 'summary'
        ? this.summaryContent()
        : kind === 'task'
          ? [text(`Task done: ${words(rng, 12)}`)]
          : this.thinkContent(body, loopCall, state, turns);
    const usage = {
      // Below the plain estimate (3 bytes a token), as English text is: the calibration factor stays 1.
      input_tokens: odd ? 1_000_000 : Math.ceil(Buffer.byteLength(raw, 'utf8') / 4),
      output_tokens: Math.ceil(Buffer.byteLength(JSON.stringify(content), 'utf8') / 4),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const toolUse = content.some((block) => block.type === 'tool_use');
    const message = {
      id: `msg_sim_${(this.messageIds += 1)}`,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content,
      stop_reason: toolUse ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage,
    };
    const shape = content.map((block) => (block.type === 'tool_use' ? block.name : 'text')).join('+') || 'empty';
    return { status: 200, body: message, delayMs: latency, outcome: `${kind} ${shape}${odd ? ' (odd usage)' : ''}` };
  }

  private summaryContent(): Block[] {
    return [text(`The user and the agent talked about ${words(this.rng, this.rng.int(10, 60))}.`)];
  }

  /** A think's call: the first decides the plan; later calls (after tool results) reply to what is still pending. */
  private thinkContent(body: RequestBody, loopCall: number, state: string, turns: string[]): Block[] {
    const { rng } = this;
    const ids = new ToolUseIds(this.count);
    const ordinary = this.options.profile === 'ordinary';
    const mcpTools = (body.tools ?? [])
      .map((t) => t.name)
      .filter((name) => (ordinary ? ORDINARY_TOOLS.has(name) : name.startsWith('mcp__')));
    const replies = () =>
      turns.map((turnId) => ids.use('reply', { turnId, text: `Answer to ${turnId}: ${words(rng, rng.int(3, 40))}` }));
    if (ordinary) return this.ordinaryContent(ids, loopCall, turns, mcpTools, replies);
    if (loopCall > 0) {
      if (loopCall < 3 && rng.chance(0.2) && mcpTools.length > 0) return [this.mcpCall(ids, mcpTools)];
      return turns.length > 0 ? replies() : [];
    }
    if (turns.length === 0) {
      const plan = rng.weighted({ idle: 50, remember: 20, tool: 12, goal: 10, task: 3, feel: 5 });
      if (plan === 'remember')
        return [ids.use('remember', { content: `Fact ${words(rng, 6)}`, salience: rng.next(), keep: rng.chance(0.5) })];
      if (plan === 'tool' && mcpTools.length > 0) return [this.mcpCall(ids, mcpTools)];
      if (plan === 'goal') return [this.goalStep(ids, state)];
      if (plan === 'task')
        return [ids.use('spawn_task', { prompt: `Look into ${words(rng, 5)}`, deadlineSeconds: rng.int(30, 600) })];
      if (plan === 'feel') return [ids.use('feel', { valence: rng.next() * 2 - 1, arousal: rng.next() - 0.5 })];
      return [];
    }
    const plan = rng.weighted({
      reply: 50,
      toolsFirst: 25,
      rememberAndReply: 8,
      goalAndReply: 5,
      recallFirst: 4,
      text: 5,
      silent: 3,
    });
    if (plan === 'toolsFirst' && mcpTools.length > 0) {
      return Array.from({ length: rng.int(1, 2) }, () => this.mcpCall(ids, mcpTools));
    }
    if (plan === 'recallFirst') return [ids.use('recall', { query: words(rng, 2) })];
    if (plan === 'rememberAndReply')
      return [
        ids.use('remember', { content: `The user said ${words(rng, 8)}`, salience: rng.next(), keep: true }),
        ...replies(),
      ];
    if (plan === 'goalAndReply') return [this.goalStep(ids, state), ...replies()];
    if (plan === 'text') return [text(`Here is my answer: ${words(rng, rng.int(3, 30))}`)];
    if (plan === 'silent') return [];
    return replies();
  }

  /** An ordinary agent: answers each message, one in five after a tool call, and keeps one fact in ten. */
  private ordinaryContent(
    ids: ToolUseIds,
    loopCall: number,
    turns: string[],
    mcpTools: string[],
    replies: () => Block[],
  ): Block[] {
    const { rng } = this;
    if (turns.length === 0)
      return rng.chance(0.1)
        ? [ids.use('remember', { content: `Noted: ${words(rng, 8)}`, salience: 0.6, keep: true })]
        : [];
    if (loopCall === 0 && mcpTools.length > 0 && rng.chance(0.2)) return [this.mcpCall(ids, mcpTools)];
    const keep = rng.chance(0.1)
      ? [ids.use('remember', { content: `The user said ${words(rng, 8)}`, salience: 0.7, keep: true })]
      : [];
    return [...keep, ...replies()];
  }

  private mcpCall(ids: ToolUseIds, tools: string[]): Block {
    const { rng } = this;
    const name = rng.pick(tools);
    const id = ids.next();
    // Every call carries a key of its own: the server counts effects by it, so a call run twice shows.
    return { type: 'tool_use', id, name, input: { key: id, text: words(rng, rng.int(1, 8)) } };
  }

  private goalStep(ids: ToolUseIds, state: string): Block {
    const { rng } = this;
    const goalIds = [...state.matchAll(/^- \[([^\]]+)\]/gm)].map((m) => m[1]!);
    if (goalIds.length > 0 && rng.chance(0.7)) {
      const goalId = rng.pick(goalIds);
      return rng.chance(0.2)
        ? ids.use('goal_complete', { goalId })
        : ids.use('goal_progress', { goalId, delta: Math.round(rng.next() * 40) / 100 });
    }
    return ids.use('goal_add', { title: `Goal ${words(rng, 3)}`, priority: rng.int(1, 10) });
  }
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

interface RequestBody {
  system?: { text: string }[];
  tools?: { name: string }[];
  messages?: { role: string; content: string | { type: string; text?: string }[] }[];
}

/** Deterministic tool_use ids: the request's index and the block's. */
class ToolUseIds {
  private count = 0;
  constructor(private readonly request: number) {}
  next(): string {
    this.count += 1;
    return `toolu_sim_${this.request}_${this.count}`;
  }
  use(name: string, input: unknown): Block {
    return { type: 'tool_use', id: this.next(), name, input };
  }
}

function text(value: string): Block {
  return { type: 'text', text: value };
}

function apiError(
  status: number,
  type: string,
  message: string,
): { status: number; body: unknown; headers: Record<string, string> } {
  return { status, body: { type: 'error', error: { type, message } }, headers: { 'x-should-retry': 'false' } };
}

function firstUserText(body: RequestBody): string {
  const first = body.messages?.[0]?.content;
  if (typeof first === 'string') return first;
  return (first ?? []).map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tas',
  'vo',
  'pel',
  'dru',
  'sin',
  'or',
  'bex',
  'qua',
  'lim',
  'nor',
  'fe',
  'zu',
  'gar',
  'hol',
  'ix',
  'wen',
];

/** `count` made-up words of two or three syllables (some 8,400 of them, so a search index has a vocabulary to grow). */
export function words(rng: SimRandom, count: number): string {
  const word = () => Array.from({ length: rng.int(2, 3) }, () => rng.pick(SYLLABLES)).join('');
  return Array.from({ length: count }, word).join(' ');
}
