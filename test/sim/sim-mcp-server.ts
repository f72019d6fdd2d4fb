/**
 * The simulated MCP server: the SDK's own `McpServer` over its `InMemoryTransport`, one connection per runtime
 * incarnation, reached through the runtime's `mcp.createTransport` seam (the rest of the MCP path is production code).
 * Its tools take simulated time, fail, sometimes never answer, and count every effect by the call's key, so a
 * non-idempotent call run twice shows.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import type { McpServerEntry } from '../../src/protocol/mcp-config.schema.js';
import type { ServerTransport } from '../../src/subsystems/tools/mcp-transport.js';
import type { SimWorldClock } from './sim-clock.js';
import type { SimRandom } from './sim-random.js';

/** The server's name in `VIGIL_MCP_CONFIG`, and its entry: one idempotent tool, one under approval. */
export const SIM_SERVER = 'sim';
export const SIM_SERVER_ENTRY: McpServerEntry = {
  url: 'http://sim.invalid/mcp',
  idempotentTools: ['lookup'],
  requireApproval: ['send_email'],
  timeoutMs: 600_000,
};

/** One effect: a call the server ran (counted at its arrival, before its answer). */
export interface SimEffect {
  key: string;
  tool: string;
  incarnation: number;
  at: number;
}

const NON_IDEMPOTENT = new Set(['append_note', 'send_email', 'flaky', 'slow']);

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** The server side of the world: its effects, and a connection per incarnation. */
export class SimMcpServer {
  readonly effects: SimEffect[] = [];
  private readonly connections = new Map<number, InMemoryTransport[]>();
  private calm = false;

  constructor(
    private readonly world: SimWorldClock,
    private readonly rng: SimRandom,
    /** Whether effects are kept (the year keeps none: its heap is measured). */
    private readonly keepEffects = true,
  ) {}

  /** Keys run more than once by a tool that is not idempotent. */
  duplicates(): string[] {
    const seen = new Map<string, number>();
    for (const effect of this.effects)
      if (NON_IDEMPOTENT.has(effect.tool)) seen.set(effect.key, (seen.get(effect.key) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([key]) => key);
  }

  /** From now on no errors, no calls that never answer, no dropped connections. */
  quiet(): void {
    this.calm = true;
  }

  /** The runtime's `mcp.createTransport` for incarnation `incarnation`. */
  transportFor(incarnation: number): (entry: McpServerEntry) => ServerTransport {
    return () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      const list = this.connections.get(incarnation) ?? [];
      list.push(client);
      this.connections.set(incarnation, list);
      void this.serve(incarnation).connect(server);
      return { transport: client, stderr: null, pid: () => null };
    };
  }

  /** The server drops incarnation `incarnation`'s connection (the runtime sees it go down and reconnects). */
  async drop(incarnation: number): Promise<void> {
    const list = this.connections.get(incarnation) ?? [];
    const open = list.pop();
    await open?.close();
  }

  /** Incarnation `incarnation` died: its connections close (calls already received still run here). */
  async cut(incarnation: number): Promise<void> {
    const list = this.connections.get(incarnation) ?? [];
    this.connections.delete(incarnation);
    for (const transport of list) await transport.close().catch(() => undefined);
  }

  private serve(incarnation: number): McpServer {
    const server = new McpServer({ name: 'sim', version: '1.0.0' });
    const input = { key: z.string(), text: z.string().optional() };
    const tool = (
      name: string,
      description: string,
      run: (key: string, signal: AbortSignal) => Promise<ReturnType<typeof text> & { isError?: boolean }>,
    ) =>
      server.registerTool(name, { description, inputSchema: input }, async ({ key }, extra) => {
        if (this.keepEffects) this.effects.push({ key, tool: name, incarnation, at: this.world.now() });
        return run(key, extra.signal);
      });
    tool('lookup', 'Looks something up (idempotent).', async (key, signal) => {
      await this.wait(this.rng.int(20, 2_000), signal);
      return text(`found ${key}`);
    });
    tool('append_note', 'Appends a note (not idempotent).', async (key, signal) => {
      await this.wait(this.rng.int(20, 3_000), signal);
      return text(`noted ${key}`);
    });
    tool('send_email', 'Sends an email (not idempotent; needs approval).', async (key, signal) => {
      await this.wait(this.rng.int(100, 5_000), signal);
      return text(`sent ${key}`);
    });
    tool('flaky', 'Fails often (not idempotent).', async (key, signal) => {
      await this.wait(this.rng.int(20, 1_000), signal);
      if (!this.calm && this.rng.chance(0.1)) throw new Error(`flaky failed hard on ${key}`);
      return !this.calm && this.rng.chance(0.3)
        ? { ...text(`flaky error on ${key}`), isError: true }
        : text(`flaky ok ${key}`);
    });
    tool('slow', 'Takes long, sometimes forever (not idempotent).', async (key, signal) => {
      await this.wait(!this.calm && this.rng.chance(0.15) ? 'forever' : this.rng.int(2_000, 60_000), signal);
      return text(`slow done ${key}`);
    });
    return server;
  }

  /** Waits `ms` of simulated time, or until the call is cancelled (then the SDK answers nothing). */
  private wait(ms: number | 'forever', signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = ms === 'forever' ? undefined : this.world.setTimeout(resolve, ms);
      signal.addEventListener(
        'abort',
        () => {
          if (timer !== undefined) this.world.clearTimeout(timer);
          reject(new Error('cancelled'));
        },
        { once: true },
      );
    });
  }
}
