/**
 * Which user turns are open, for the parts built before the heartbeat that keeps them (the durable tool caller asks
 * whether a decided call's turn has ended). The turn book in the heartbeat's context stays the one home of turn
 * state: this only reads it, first in the boot seed, then, once `follow`ed, in the running heartbeat.
 */
import type { TurnState } from '../heartbeat/heartbeat.types.js';
import { isOpen } from '../heartbeat/turn-book.js';
import { VigilError } from '../errors.js';

/** Where the open turns are read: a function, so each question sees the turns as they are at that moment. */
export type TurnSource = () => TurnState;

/** Answers `isOpen(turnId)` from the seed's turns until the heartbeat exists, then from the heartbeat's context. */
export class OpenTurns {
  private source: TurnSource;
  private following = false;

  /** Open turns as the boot seed has them (the heartbeat starts from the same seed). */
  constructor(seed: TurnState) {
    this.source = () => seed;
  }

  /** From now on reads the running heartbeat's turns; called once, by the runtime core that creates the heartbeat. */
  follow(source: TurnSource): void {
    if (this.following)
      throw new VigilError('INTERNAL', 'OpenTurns already follows a heartbeat; a runtime core follows it once.');
    this.following = true;
    this.source = source;
  }

  /** True while user turn `turnId` waits for its answer. */
  isOpen(turnId: string): boolean {
    return isOpen(this.source(), turnId);
  }
}
