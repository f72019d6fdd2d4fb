/**
 * The offline thinker's commands act with the scope of the message's sender (CONTRACT §14, DESIGN "the scope before
 * the effect, whoever the effect goes through"): `/tool`, `/schedule` and a `/task` that hands a task tools are what
 * `tools.*` and `schedules.*` do over RPC, so they need `operate`; a talk token's message gets a reply saying so and
 * nothing is done. The model's own tools are not gated here: the model is not a token holder.
 */
import { scopeAllows, type TokenScope } from '../../protocol/token-scopes.js';
import type { PendingMessage, ThinkAction } from './thinker.schema.js';

/** The scope the offline thinker's acting commands need. */
export const COMMAND_SCOPE: TokenScope = 'operate';

/** The scope `message` was sent with; one logged or checkpointed before scopes were recorded acts as `operate`. */
export function senderScope(message: PendingMessage): TokenScope {
  return message.scope ?? 'operate';
}

/** The reply refusing `command` (`/tool`, `/schedule`, `/task tools=…`) to a sender without `operate`; undefined when allowed. */
export function refusalBeyondScope(message: PendingMessage, command: string): ThinkAction[] | undefined {
  const held = senderScope(message);
  if (scopeAllows(held, COMMAND_SCOPE)) return undefined;
  const text =
    `${command} needs the ${COMMAND_SCOPE} scope, and this message was sent with a ${held} token, so nothing was ` +
    `done. Ask an operator, or send it with an ${COMMAND_SCOPE} token.`;
  return [{ type: 'reply', turnId: message.turnId, text }];
}
