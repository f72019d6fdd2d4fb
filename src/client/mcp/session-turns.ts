/**
 * The turns this `vigil mcp` session asked for with `send_message`: their replies come back as tool results (or
 * through `get_reply`), so the channel does not push them again. A reply can reach the channel's feed before
 * `agent.send` has answered with its turn id, so a send in flight is counted and the channel can wait for it.
 */
export class SessionTurns {
  private readonly turns = new Set<string>();
  private inFlight = 0;
  private waiters: Array<() => void> = [];

  /**
   * Marks a send as started; call the function it returns once with the turn id `agent.send` answered, or with
   * undefined when the send failed (later calls do nothing).
   */
  begin(): (turnId: string | undefined) => void {
    this.inFlight += 1;
    let ended = false;
    return (turnId) => {
      if (ended) return;
      ended = true;
      if (turnId !== undefined) this.turns.add(turnId);
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** True when this session sent the message that opened `turnId`. */
  has(turnId: string): boolean {
    return this.turns.has(turnId);
  }

  /** Settles once no send is in flight (at once when none is). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
