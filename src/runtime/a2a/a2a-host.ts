/**
 * The runtime as the gateway's A2A server sees it: a message admitted as a turn with the A2A task's record in the
 * same synced batch (after `kill -9` both exist or neither does), and the turn's one ending, live or read back from
 * the conversation after a restart.
 */
import type { SendParams, SendResult } from '../../protocol/agent.schema.js';
import type { TokenScope } from '../../protocol/token-scopes.js';
import type { VigilBatchOp, VigilDb } from '../../subsystems/store/vigil-db.js';
import { sendMessage } from '../facade/conversation.facade.js';
import type { RuntimeCore } from '../runtime-core.js';

// How far a lookup goes for a turn's ending after its message: more than any reply is ever behind its message.
const ENDING_SCAN_LIMIT = 20_000;
const ENDING_PAGE = 500;

/** How a turn ended: its answer (`agent.reply`), or why it has none (`agent.unanswered`). */
export interface TurnOutcome {
  turnId: string;
  answered: boolean;
  text: string;
}

/** What the A2A server needs of the runtime. */
export interface A2aHost {
  /** The agent's identity text: the Agent Card's name and description come from it. */
  identity(): string;
  /** The store the A2A tasks are kept in (their own sublevel). */
  db(): VigilDb;
  /** `agent.send` with `alongside(turnId, seq)` written in the message's batch. */
  admit(
    params: SendParams,
    scope: TokenScope,
    alongside: (turnId: string, seq: number) => VigilBatchOp[],
  ): Promise<SendResult>;
  /** The ending of `turnId`, whose message has seq `seq`, when it is already logged. */
  ending(turnId: string, seq: number): Promise<TurnOutcome | undefined>;
  /** Calls `listener` with every turn's ending from now on; returns the unsubscribe. */
  onEnding(listener: (outcome: TurnOutcome) => void): () => void;
}

/** The `A2aHost` of a runtime. */
export function a2aHostOf(core: RuntimeCore): A2aHost {
  const { bus, conversation } = core.parts;
  return {
    identity: () => core.parts.deps.identity,
    db: () => core.parts.db,
    admit: (params, scope, alongside) => sendMessage(core, params, scope, alongside),
    async ending(turnId, seq) {
      let after = seq;
      for (let scanned = 0; scanned < ENDING_SCAN_LIMIT; scanned += ENDING_PAGE) {
        const page = await conversation.readAfter(after, ENDING_PAGE);
        const ending = page.find((message) => message.turnId === turnId && message.role === 'assistant');
        if (ending !== undefined) return { turnId, answered: ending.unanswered === undefined, text: ending.text };
        if (page.length < ENDING_PAGE) return undefined;
        after = page.at(-1)!.seq;
      }
      return undefined;
    },
    onEnding(listener) {
      const subscription = bus.events$.subscribe((event) => {
        if (event.type === 'agent.reply') listener({ turnId: event.turnId, answered: true, text: event.text });
        else if (event.type === 'agent.unanswered')
          listener({ turnId: event.turnId, answered: false, text: event.reason });
      });
      return () => subscription.unsubscribe();
    },
  };
}
