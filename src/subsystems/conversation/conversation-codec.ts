/** How the conversation log stores its entries: seq keys that sort numerically, and the checks on entries written and read. */
import type { ZodError } from 'zod';
import { VigilError } from '../../errors.js';
import {
  ConversationMessageSchema,
  NewConversationMessageSchema,
  type ConversationMessage,
  type NewConversationMessage,
} from '../../protocol/conversation.schema.js';

// Number.MAX_SAFE_INTEGER has 16 digits, so zero-padding to 16 makes string order numeric order for every safe seq.
const SEQ_WIDTH = 16;
/** The meta key of the highest seq ever issued. */
export const HIGHEST_SEQ_KEY = 'highestSeq';

/** The log's key for `seq`: zero-padded so keys sort numerically. */
export function conversationSeqKey(seq: number): string {
  return String(Math.max(0, Math.floor(seq))).padStart(SEQ_WIDTH, '0');
}

/** `msg` checked against its schema before it is numbered; INTERNAL when it does not match. */
export function parseNewMessage(msg: NewConversationMessage): NewConversationMessage {
  const input = NewConversationMessageSchema.safeParse(msg);
  if (!input.success)
    throw new VigilError('INTERNAL', `A conversation message does not match its schema: ${firstIssue(input.error)}.`);
  return input.data;
}

/** An entry as read back; STORE_IO when it is unreadable. */
export function parseMessage(key: string, value: unknown): ConversationMessage {
  const parsed = ConversationMessageSchema.safeParse(value);
  if (!parsed.success) {
    throw new VigilError('STORE_IO', `Conversation entry ${key} is unreadable: ${firstIssue(parsed.error)}.`);
  }
  return parsed.data;
}

function firstIssue(error: ZodError): string {
  const issue = error.issues[0];
  return issue === undefined ? 'invalid' : `${issue.path.join('.') || '(root)'}: ${issue.message}`;
}

/** A count or limit as a whole number, never below 0. */
export function nonNegative(n: number): number {
  return Math.max(0, Math.floor(n));
}
