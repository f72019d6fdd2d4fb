/**
 * A seed's chat channel, when it has one: who writes to the bot (senders allowed by the file, an operator, a stranger
 * or two), in which chats (direct chats, a group the agent takes part in, one it does not), under which `dmPolicy`,
 * how often, and how hostile the platform is. Drawn from a stream of its own, so a seed without a channel draws
 * exactly what it drew before channels were simulated.
 */
import type { ChannelsConfigFile, DmPolicy } from '../../src/protocol/channels.schema.js';
import type { SimRandom } from './sim-random.js';

/** The channel's name in the file (and every channel sender's `from` prefix). */
export const SIM_CHANNEL = 'sim';
/** The variable the entry names for its token, and the token the injected environment holds. */
export const SIM_CHANNEL_TOKEN_ENV = 'SIM_CHAT_TOKEN';
/** The bot's name on the platform: a group message naming it addresses the bot. */
export const SIM_BOT_USERNAME = 'sim_bot';

/** How often each fault happens on the platform while the world is hostile (per call, 0 to 1). */
export interface ChatFaults {
  /** A 429 with a retry-after (place and edit). */
  rateLimited: number;
  /** The call took effect and its answer was lost (a 5xx or a timeout on the way back). */
  lostAnswer: number;
  /** The runtime is killed while a placeholder's answer is on its way back (kill -9 between request and write). */
  crashOnPlace: number;
  /** A person deletes a placeholder the bot left showing "…". */
  deletes: boolean;
}

/** One seed's channel. */
export interface SimChannelScenario {
  dmPolicy: DmPolicy;
  /** Senders the file allows, and the operator (also allowed, acting with `operate`). */
  allowFrom: string[];
  operators: string[];
  /** Senders the file does not name. */
  strangers: string[];
  /** The group the agent takes part in, and one it does not. */
  group: string;
  otherGroup: string;
  /** Mean simulated ms between two things people (or the world) do on the platform. */
  meanGapMs: number;
  /** The most characters one message may hold (small ones make replies split into several messages). */
  maxMessageLength: number;
  /** Simulated ms a long poll waits for an update. */
  pollTimeoutMs: number;
  faults: ChatFaults;
}

/** Whether `seed` has a channel, and which (null: none). */
export function drawChannel(rng: SimRandom): SimChannelScenario | null {
  if (!rng.chance(0.5)) return null;
  const hostile = rng.chance(0.7);
  return {
    dmPolicy: rng.weighted<DmPolicy>({ pairing: 12, allowlist: 3, open: 2, disabled: 1 }),
    allowFrom: ['101', '102'],
    operators: ['103'],
    strangers: rng.chance(0.5) ? ['201'] : ['201', '202'],
    group: '-1001',
    otherGroup: '-1002',
    meanGapMs: rng.int(12_000, 30_000),
    maxMessageLength: rng.pick([4096, 4096, 200, 140]),
    pollTimeoutMs: rng.pick([10_000, 30_000]),
    faults: {
      rateLimited: hostile ? 0.06 : 0,
      lostAnswer: hostile ? 0.06 : 0.01,
      crashOnPlace: hostile ? 0.05 : 0,
      deletes: rng.chance(0.3),
    },
  };
}

/** The channel's entry, as `config.channels` takes it (the parsed file, defaults filled in). */
export function channelConfig(channel: SimChannelScenario): ChannelsConfigFile {
  return {
    channels: {
      [SIM_CHANNEL]: {
        type: 'telegram',
        tokenEnv: SIM_CHANNEL_TOKEN_ENV,
        apiRoot: 'http://chat.sim.invalid',
        dmPolicy: channel.dmPolicy,
        allowFrom: channel.allowFrom,
        groups: [channel.group],
        operators: channel.operators,
      },
    },
  };
}

/** What the file's policy makes of a platform message, before any pairing is approved. */
export type PolicyVerdict = 'admit' | 'stranger' | 'ignore' | 'refuse';

/** The verdict on a message of `senderId` in `chatId` (a group's when it is one of the two groups). */
export function verdictOf(
  channel: SimChannelScenario,
  message: { chatId: string; senderId: string; mentionsBot: boolean; repliesToBot: boolean },
): PolicyVerdict {
  if (message.chatId === channel.group) return message.mentionsBot || message.repliesToBot ? 'admit' : 'ignore';
  if (message.chatId === channel.otherGroup) return 'ignore';
  const known = channel.allowFrom.includes(message.senderId) || channel.operators.includes(message.senderId);
  switch (channel.dmPolicy) {
    case 'disabled':
      return 'refuse';
    case 'open':
      return 'admit';
    case 'allowlist':
      return known ? 'admit' : 'refuse';
    case 'pairing':
      return known ? 'admit' : 'stranger';
  }
}
