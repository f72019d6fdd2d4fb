/** What one of the outbox's chat lanes does next: a reply machine action, a streaming preview, or resolving a lost send. */
import type { ReplyRecord } from '../../protocol/channel-records.schema.js';
import type { ReplyAction } from './reply.machine.js';
/** The least time between two edits into one chat. */
export const EDIT_SPACING_MS = 1_000;

/** An edit showing a streaming reply's text so far; nothing is written for it. */
export interface PreviewAction {
  kind: 'preview';
  slot: number;
  messageId: string;
  text: string;
}

/** A placeholder's send whose outcome was never written: resolved as unknown, as after a restart. */
export interface ResolveAction {
  kind: 'resolve';
}

export type StepAction = Exclude<ReplyAction, { kind: 'none' }> | PreviewAction | ResolveAction;

/** What a lane does next. */
export interface Step {
  reply: ReplyRecord;
  action: StepAction;
}
