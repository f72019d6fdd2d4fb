/**
 * A channel's outbox: one lane per chat drives that chat's open replies through the reply machine, in the order their
 * messages were admitted. Each step's state is written (synced) before the platform call it leads to and again with
 * what came back, so after `kill -9` a lane resumes exactly where it was: an edit is repeated (harmless), a placeholder
 * whose send was in flight is counted as a possible stray and placed again (never the reply itself twice). A 429 holds
 * that chat's lane until `retry_after` has passed; a failure without an answer is retried with backoff; a refusal for
 * good ends the reply with `channel.send_failed`.
 */
import type { ReplyRecord } from '../../protocol/channel-records.schema.js';
import type { VigilEvent } from '../../protocol/events.schema.js';
import { delay, type Clock } from '../../shared/clock.js';
import { createMutex } from '../../shared/mutex.js';
import type { VigilLogger } from '../../shared/logger.js';
import { ChannelCallError, type ChannelAdapter } from './channel-adapter.js';
import type { ChannelHost, TurnEnding } from './channel-host.js';
import type { ChannelStore } from './channel-store.js';
import {
  nextReplyAction,
  PLACEHOLDER_TEXT,
  replyMessageIds,
  replyTransition,
  type ReplyInput,
} from './reply.machine.js';
import { backoffMs } from './channel-link.machine.js';
import { EDIT_SPACING_MS, type PreviewAction, type Step, type StepAction } from './outbox-step.js';
import { sendWhole } from './outbox-send.js';
import { splitForAdapter } from './reply-split.js';

/** What the outbox is built from. */
export interface ChannelOutboxOptions {
  name: string;
  store: ChannelStore;
  adapter: ChannelAdapter;
  host: ChannelHost;
  clock: Clock;
  log: VigilLogger;
  /** Told of every call's outcome, for the channel's connection state. */
  onCall?: (error: ChannelCallError | undefined) => void;
  /** Told when a message went out. */
  onSent?: () => void;
}

/** One chat's lane. */
interface Lane {
  running: boolean;
  again: boolean;
  failures: number;
}

/** Delivers replies into their chats, each exactly once as a person sees it. */
export class ChannelOutbox {
  private readonly lanes = new Map<string, Lane>();
  // What each streaming turn has written so far, and what its message shows of it (memory only: a preview is redone).
  private readonly previews = new Map<string, { text: string; shown: string }>();
  // When each chat's last edit went out: edits into one chat at most once a second (CONTRACT §18).
  private readonly lastEditAt = new Map<string, number>();
  private readonly changes = createMutex();
  private readonly stopping = new AbortController();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly options: ChannelOutboxOptions) {}

  /** Resumes after a start: sends in flight at the crash become unknown, endings written meanwhile are filled in. */
  async recover(): Promise<void> {
    const { store, host, clock } = this.options;
    for (const reply of store.openReplies()) {
      await this.change(reply.turnId, { type: 'recovered', at: clock.now(), whole: !this.edits() });
      if (reply.state !== 'awaiting') continue;
      const ending = await host.ending(reply.turnId, reply.userSeq);
      if (ending !== undefined) await this.fill(ending);
    }
    for (const chatId of new Set(store.openReplies().map((reply) => reply.chatId))) this.kick(chatId);
  }

  /** The number of replies not yet over. */
  pending(): number {
    return this.options.store.openReplies().length;
  }

  /** A turn ended: its text, split to the platform's limit, goes into its reply. */
  async fill(ending: TurnEnding, ack = false): Promise<void> {
    const reply = this.options.store.reply(ending.turnId);
    if (reply === undefined) return;
    const texts = splitForAdapter(ending.text, this.options.adapter);
    const input: ReplyInput = {
      type: 'fill',
      texts: texts.length > 0 ? texts : ['(no reply)'],
      final: !ack,
      ack,
      at: this.options.clock.now(),
    };
    await this.change(ending.turnId, input);
    this.kick(reply.chatId);
  }

  /** A piece of turn `turnId`'s reply as the model writes it: shown in its first message by an edit, at most once a second. */
  preview(turnId: string, piece: string): void {
    const reply = this.options.store.reply(turnId);
    // A platform that cannot edit shows nothing until the reply is whole.
    if (reply === undefined || reply.state !== 'awaiting' || !this.edits()) return;
    const preview = this.previews.get(turnId) ?? { text: '', shown: '' };
    preview.text += piece;
    this.previews.set(turnId, preview);
    this.kick(reply.chatId);
  }

  /**
   * `fill`, tried again with backoff until it is written (or the outbox stops): a turn's ending is never left waiting
   * for the next start because one write failed.
   */
  async take(ending: TurnEnding): Promise<void> {
    const { clock, log, name } = this.options;
    for (let failures = 1; !this.stopping.signal.aborted; failures++) {
      try {
        await this.fill(ending);
        return;
      } catch (err) {
        log.warn(
          { channel: name, turnId: ending.turnId, err: err instanceof Error ? err.message : String(err) },
          'channel reply not recorded yet',
        );
        try {
          await delay(clock, backoffMs(failures), this.stopping.signal);
        } catch {
          return;
        }
      }
    }
  }

  /** Wakes the chat's lane. */
  kick(chatId: string): void {
    if (this.stopping.signal.aborted) return;
    let lane = this.lanes.get(chatId);
    if (lane === undefined) {
      lane = { running: false, again: false, failures: 0 };
      this.lanes.set(chatId, lane);
    }
    if (lane.running) {
      lane.again = true;
      return;
    }
    lane.running = true;
    const run = this.pump(chatId, lane).finally(() => {
      lane.running = false;
      this.running.delete(run);
    });
    this.running.add(run);
  }

  /** Stops every lane (a call in flight finishes; its outcome is written). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.running]);
  }

  private async pump(chatId: string, lane: Lane): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      lane.again = false;
      const step = this.nextStep(chatId);
      if (step === undefined) {
        if (lane.again) continue;
        return;
      }
      const waitMs = await this.perform(step.reply, step.action).catch((err: unknown) =>
        this.storeFailed(step.reply, err),
      );
      if (waitMs === 0) {
        lane.failures = 0;
        continue;
      }
      try {
        await delay(this.options.clock, waitMs, signal);
      } catch {
        return;
      }
    }
  }

  private nextStep(chatId: string): Step | undefined {
    const replies = this.options.store.openReplies().filter((reply) => reply.chatId === chatId);
    // Between steps no send of this chat is in flight: a slot still `placing` is one whose outcome was never written.
    const stale = replies.find((reply) => reply.slots.some((slot) => slot.status === 'placing'));
    if (stale !== undefined) return { reply: stale, action: { kind: 'resolve' } };
    for (const reply of replies) {
      const action = nextReplyAction(reply, this.edits());
      if (action.kind !== 'none') return { reply, action };
    }
    for (const reply of replies) {
      const action = this.previewAction(reply);
      if (action !== undefined) return { reply, action };
    }
    return undefined;
  }

  // A streaming reply's text so far, into the message waiting for it (its first part only; the rest come at the end).
  private previewAction(reply: ReplyRecord): PreviewAction | undefined {
    const preview = this.previews.get(reply.turnId);
    if (preview === undefined) return undefined;
    if (reply.state !== 'awaiting') {
      this.previews.delete(reply.turnId);
      return undefined;
    }
    const slot = reply.slots.findIndex((each) => each.status === 'placed' && each.text === undefined);
    const messageId = reply.slots[slot]?.messageId;
    if (messageId === undefined) return undefined;
    const [text] = splitForAdapter(preview.text, this.options.adapter);
    if (text === undefined || text === preview.shown) return undefined;
    return { kind: 'preview', slot, messageId, text };
  }

  // One platform call and its outcome, written; resolves with how long the lane waits before the next (0: at once).
  private async perform(reply: ReplyRecord, action: StepAction): Promise<number> {
    const { adapter, clock, onCall, onSent } = this.options;
    const { turnId, chatId } = reply;
    if (action.kind === 'edit' || action.kind === 'preview') {
      const sinceEdit = clock.now() - (this.lastEditAt.get(chatId) ?? Number.NEGATIVE_INFINITY);
      if (sinceEdit < EDIT_SPACING_MS) return EDIT_SPACING_MS - sinceEdit;
      this.lastEditAt.set(chatId, clock.now());
    }
    try {
      if (action.kind === 'preview') {
        await adapter.edit(chatId, action.messageId, action.text);
        const preview = this.previews.get(turnId);
        if (preview !== undefined) preview.shown = action.text;
        onCall?.(undefined);
        return 0;
      }
      if (action.kind === 'resolve') {
        // A placeholder's send whose outcome was never written (its write failed): unknown, as after a restart.
        await this.change(turnId, { type: 'recovered', at: clock.now(), whole: !this.edits() });
        return 0;
      }
      if (action.kind === 'send') {
        await sendWhole(adapter, reply, action, (input) => this.change(turnId, input), clock);
        onCall?.(undefined);
        onSent?.();
        return 0;
      }
      if (action.kind === 'place') {
        await this.change(turnId, { type: 'placing', slot: action.slot, at: clock.now() });
        const replyTo = action.replyTo || adapter.threadsReplies === true ? reply.replyTo : undefined;
        let messageId: string;
        try {
          messageId = await adapter.place(chatId, PLACEHOLDER_TEXT, replyTo);
        } catch (err) {
          const failure = asCallError(err);
          // No answer: the placeholder may be in the chat after all (a possible stray); any answer: it is not. If
          // this write fails, the slot stays `placing` and the lane's next step resolves it as unknown.
          const unknown = failure.kind === 'unreachable';
          await this.change(turnId, { type: 'place_failed', slot: action.slot, unknown, at: clock.now() }).catch(
            () => undefined,
          );
          throw failure;
        }
        await this.change(turnId, { type: 'placed', slot: action.slot, messageId, at: clock.now() });
      } else {
        await adapter.edit(chatId, action.messageId, action.text);
        await this.change(turnId, { type: 'written', slot: action.slot, at: clock.now() });
      }
      onCall?.(undefined);
      onSent?.();
      return 0;
    } catch (err) {
      // The store, not the platform, failed: wait and go on; the link's state is the platform's alone.
      if (!(err instanceof ChannelCallError)) return this.storeFailed(reply, err);
      return this.failed(reply, action, err);
    }
  }

  // False for a platform that cannot edit (email): whole sends, no placeholder, no preview.
  private edits(): boolean {
    return this.options.adapter.edits !== false;
  }

  private storeFailed(reply: ReplyRecord, err: unknown): number {
    const { log, name } = this.options;
    const lane = this.lanes.get(reply.chatId)!;
    log.warn(
      { channel: name, turnId: reply.turnId, err: err instanceof Error ? err.message : String(err) },
      'channel reply step not written',
    );
    lane.failures += 1;
    return backoffMs(lane.failures);
  }

  private async failed(reply: ReplyRecord, action: StepAction, failure: ChannelCallError): Promise<number> {
    const { clock, log, name, onCall } = this.options;
    const lane = this.lanes.get(reply.chatId)!;
    switch (failure.kind) {
      case 'gone':
        if (action.kind === 'edit' || action.kind === 'preview')
          await this.change(reply.turnId, { type: 'slot_lost', slot: action.slot, at: clock.now() });
        return 0;
      case 'refused':
        // A preview the platform refuses costs nothing: the final text is what counts.
        if (action.kind === 'preview') {
          this.previews.delete(reply.turnId);
          return 0;
        }
        log.warn({ channel: name, turnId: reply.turnId, error: failure.message }, 'reply refused by the platform');
        await this.change(reply.turnId, { type: 'failed', error: failure.message, at: clock.now() });
        return 0;
      case 'rate_limited':
        return Math.max(1, failure.retryAfterMs ?? backoffMs(1));
      default:
        onCall?.(failure);
        lane.failures += 1;
        return backoffMs(lane.failures);
    }
  }

  // Every change of a reply, one at a time: the transition, its write (with the event of its end), then memory.
  private change(turnId: string, input: ReplyInput): Promise<void> {
    return this.changes.run(async () => {
      const { store, host, name } = this.options;
      const before = store.reply(turnId);
      if (before === undefined) return;
      const after = replyTransition(before, input);
      if (after === before) return;
      const events: VigilEvent[] = [];
      if (after.state === 'sent') {
        const messageIds = replyMessageIds(after);
        events.push(host.events.stamp('channel.replied', { channel: name, chatId: after.chatId, turnId, messageIds }));
      } else if (after.state === 'failed') {
        const error = after.error ?? 'refused';
        events.push(host.events.stamp('channel.send_failed', { channel: name, chatId: after.chatId, turnId, error }));
      }
      try {
        await store.write([store.replyOp(after), ...events.map((event) => host.events.entryOp(event))]);
      } catch (err) {
        host.events.withdraw(...events);
        throw err;
      }
      store.committed({ replies: [after] });
      for (const event of events) host.events.publish(event);
      if (input.type === 'written' || input.type === 'sent') host.metrics?.channelMessages(name, 'out', 1);
      if (after.state === 'failed') host.metrics?.channelSendFailed(name);
      host.metrics?.channelPending(name, store.openReplies().length);
    });
  }
}

function asCallError(err: unknown): ChannelCallError {
  if (err instanceof ChannelCallError) return err;
  return new ChannelCallError('unreachable', err instanceof Error ? err.message : String(err));
}
