/** A hub under test: real MCP servers (the stdio fixture as a child process, the HTTP one in-process), a simulated clock for every back-off and ping, and the events it emitted. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { EventBus } from '../../../src/events/event-bus.js';
import type { McpServerEntry, McpStdioServer } from '../../../src/protocol/mcp-config.schema.js';
import type { VigilEvent } from '../../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { McpHub, type McpHubOptions } from '../../../src/subsystems/tools/mcp-hub.js';

/** The checkout's root: the stdio fixture runs there so `--import tsx` resolves. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The stdio fixture server's source. */
export const STDIO_FIXTURE = fileURLToPath(new URL('../../fixtures/mcp-stdio-server.ts', import.meta.url));

/** A config entry that starts the stdio fixture with `env`. */
export function stdioFixture(env: Record<string, string> = {}, extra: Partial<McpStdioServer> = {}): McpStdioServer {
  return { command: process.execPath, args: ['--import', 'tsx', STDIO_FIXTURE], cwd: ROOT, env, ...extra };
}

/** A hub with its clock and the events it emitted. */
export interface HubHarness {
  hub: McpHub;
  clock: ReturnType<typeof createSimulatedClock>;
  events: VigilEvent[];
  /** Resolves with the next event (from now on, or already seen after `since`) of `type` matching `test`. */
  next<T extends VigilEvent['type']>(
    type: T,
    test?: (event: Extract<VigilEvent, { type: T }>) => boolean,
    since?: number,
  ): Promise<Extract<VigilEvent, { type: T }>>;
}

/** Registers an `afterEach` stopping every hub made through the returned function (so no fixture process outlives a test). */
export function useHubs(): (servers: Record<string, McpServerEntry>, options?: Partial<McpHubOptions>) => HubHarness {
  const hubs: McpHub[] = [];
  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.stop()));
  });
  return (servers, options = {}) => {
    const clock = createSimulatedClock();
    const bus = new EventBus({ clock, currentBeat: () => 0 });
    const events: VigilEvent[] = [];
    const waiters: Array<{ test: (event: VigilEvent) => boolean; resolve: (event: VigilEvent) => void }> = [];
    bus.events$.subscribe((event) => {
      events.push(event);
      for (const waiter of [...waiters]) {
        if (!waiter.test(event)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    });
    const hub = new McpHub({ servers, bus, clock, log: silentLogger, clientVersion: 'test', ...options });
    hubs.push(hub);
    hub.start();
    return {
      hub,
      clock,
      events,
      next(type, test = () => true, since) {
        const match = (event: VigilEvent) => event.type === type && test(event as never);
        const seen = since === undefined ? undefined : events.slice(since).find(match);
        if (seen !== undefined) return Promise.resolve(seen as never);
        return new Promise((resolve, reject) => {
          // A safety net only: real processes start in well under a second.
          const timer = setTimeout(
            () => reject(new Error(`no ${type} event; events: ${JSON.stringify(events)}`)),
            15_000,
          );
          waiters.push({
            test: match,
            resolve: (event) => {
              clearTimeout(timer);
              resolve(event as never);
            },
          });
        });
      },
    };
  };
}

/** The text of a tool result's first content block. */
export function resultText(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return first?.text ?? '';
}

/** True while `pid` runs; a zombie (dead, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
