/**
 * A transport that lets a host's `initialize` through at once and holds every later message until `ready` settles.
 * `vigil mcp` answers `initialize` without waiting on the daemon (a host starts it at every session and waits for that
 * answer), while its tool list still waits for the token's scope, so a host never lists a tool it may not call.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

type Held = [message: JSONRPCMessage, extra: MessageExtraInfo | undefined];

export class GatedTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  // Messages received before `ready` settled, in arrival order; null once it has (everything then passes at once).
  private held: Held[] | null = [];

  /**
   * `ready`: what later messages wait for. `drop`: an answer not to send after all (one `answerInitializeEarly`
   * already gave).
   */
  constructor(
    private readonly inner: Transport,
    ready: Promise<unknown>,
    private readonly drop: (message: JSONRPCMessage) => boolean = () => false,
  ) {
    inner.onmessage = (message, extra) => this.receive(message, extra);
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    // Settled either way: a failed wait opens the gate too (the caller decides what a failure means before that).
    const open = (): void => this.open();
    ready.then(open, open);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.drop(message)) return Promise.resolve();
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    if (this.held === null || isInitializeRequest(message)) this.onmessage?.(message, extra);
    else this.held.push([message, extra]);
  }

  private open(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const [message, extra] of held) this.onmessage?.(message, extra);
  }
}
