/**
 * The threads the bot is in, per channel: learned as it answers in them, and otherwise asked of Slack once (a thread
 * after a restart, or one the bot joined elsewhere). Memory only, bounded: a forgotten thread is asked again.
 */

/** How many threads are remembered (the oldest go first). */
const KEEP = 5_000;

/** Known threads, and the lookup for unknown ones. */
export class ThreadMemory {
  private readonly known = new Map<string, boolean>();

  constructor(private readonly lookup: (channel: string, threadTs: string) => Promise<boolean>) {}

  /** The bot wrote, or will write, in this thread. */
  joined(channel: string, threadTs: string): void {
    this.remember(`${channel}:${threadTs}`, true);
  }

  /** Whether the bot is in the thread (a negative answer is asked again next time: the bot may join it later). */
  async has(channel: string, threadTs: string): Promise<boolean> {
    const key = `${channel}:${threadTs}`;
    if (this.known.get(key) === true) return true;
    const found = await this.lookup(channel, threadTs);
    if (found) this.remember(key, true);
    return found;
  }

  /** The threads of `channel` the bot is known to be in (a catch-up reads their replies). */
  inChannel(channel: string): string[] {
    const prefix = `${channel}:`;
    return [...this.known.keys()].filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
  }

  private remember(key: string, value: boolean): void {
    this.known.delete(key);
    this.known.set(key, value);
    if (this.known.size > KEEP) this.known.delete(this.known.keys().next().value!);
  }
}
