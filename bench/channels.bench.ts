/**
 * Bench 18: chat channels (Telegram, on the fake Bot API in `test/fixtures/fake-telegram.ts`). (a) A Telegram message
 * to the bot's first message in its chat, against `agent.send` to `agent.reply` over the WebSocket, alternating, on one
 * real daemon; (b) a backlog of 1,000 messages admitted as durable turns, against 200 messages a second; (c) the idle
 * beat with a connected idle channel against none, measured as bench 17 measures it beside webhook endpoints.
 */
import { admissionBench, type AdmissionOptions } from './channels-admission.js';
import { idleChannelBench, type IdleChannelOptions } from './channels-idle.js';
import { replyBench, type ReplyOptions } from './channels-reply.js';
import { renderReport, type BenchOutcome } from './report.js';

/** How much each part measures. */
export interface ChannelsBenchOptions {
  reply: ReplyOptions;
  admission: AdmissionOptions;
  idle: IdleChannelOptions;
}

/** The load `npm run bench` uses. */
export const DEFAULT_CHANNELS_BENCH_OPTIONS: ChannelsBenchOptions = {
  reply: { rounds: 200, warmup: 20 },
  admission: { messages: 1_000, senders: 5, runs: 5 },
  // As bench 17: 31 repetitions of 4,000 one-second beats after 2,000 to warm up, the three runtimes in rotating order.
  idle: { warmupBeats: 2_000, beatsPerRep: 4_000, reps: 31 },
};

/** Runs bench 18. */
export async function channelsBench(
  options: ChannelsBenchOptions = DEFAULT_CHANNELS_BENCH_OPTIONS,
): Promise<BenchOutcome> {
  const reply = await replyBench(options.reply);
  const admission = await admissionBench(options.admission);
  const idle = await idleChannelBench(options.idle);
  return {
    id: 'channels',
    title:
      '18. Channels: a Telegram message to its reply, a backlog of 1,000 admitted, and the idle beat beside an idle channel',
    checks: [...reply.checks, admission.check, ...idle.checks],
    details: [...reply.details, ...admission.details, ...idle.details],
    sanity: [...reply.sanity, ...admission.sanity, ...idle.sanity],
    notes: [
      `Reply: one \`vigil run\` (offline thinker, 30 s beats, daemon defaults otherwise) with a Telegram channel on the fake Bot API in the bench's process; ${options.reply.rounds} rounds after ${options.reply.warmup} to warm up, each a Telegram message and an agent.send over one typed-client connection, the order swapped every round. A Telegram round starts with the channel's long poll held, is timed from userSends to the fake storing the bot's placeholder ("…", replying to the message) and to its edit into the reply, and ends once channel.replied is in the journal; each round writes in a chat of its own (Vigil spaces edits into one chat a second apart).`,
      `Admission: ${options.admission.messages} messages from ${options.admission.senders} allowlisted senders queued on the fake before the runtime (in-process, on-disk LevelDB, real clock, offline thinker) is created; timed from runtime.start() to the last channel.received. getUpdates serves pages of 100; the heartbeat starts answering the first page's turns while the later pages are admitted, and the fake runs in the same process, as in the other in-process benches.`,
      "Idle beat: three runtimes on simulated clocks, as bench 17; the channel's long poll is real HTTP to the fake (30 s, real time), answered empty at its timeout and asked again; nothing of the channel runs per beat.",
    ],
  };
}

// `node --import tsx bench/channels.bench.ts` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now();
  const outcome = await channelsBench();
  const durationMs = performance.now() - started;
  process.stdout.write(`${renderReport([{ ...outcome, durationMs }], durationMs)}\n`);
}
