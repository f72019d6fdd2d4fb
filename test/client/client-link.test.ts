/**
 * `vigil mcp`'s link opener: it looks for the daemon again (daemon.json, token file) each time it has no open link,
 * reuses an open one, and words a failure to find or reach the daemon as the client commands do.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { resolveTarget, type DaemonTarget } from '../../src/client/commands/client-options.js';
import { describeConnectFailure } from '../../src/client/commands/connect-failure.js';
import { createLinkOpener, type LinkOpener } from '../../src/client/mcp/client-link.js';
import { LinkUnavailableError } from '../../src/client/mcp/link-unavailable.js';
import { failureResult } from '../../src/client/mcp/mcp-tool-result.js';
import { isVigilError } from '../../src/errors.js';
import { writeDaemonFile } from '../../src/shared/daemon-file.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from '../gateway/gateway.fixture.js';

let dir: string;
const harnesses: GatewayHarness[] = [];
const openers: LinkOpener[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-client-link-'));
});
afterEach(async () => {
  for (const opener of openers.splice(0)) await opener.close();
  for (const harness of harnesses.splice(0)) await harness.close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// Nothing listens on port 9: where a client looks when no daemon.json names a live daemon.
const io = { env: { VIGIL_PORT: '9' } } as unknown as CliIo;

/** An opener over `dataDir` as `vigil mcp --data-dir dataDir` finds its daemon, counting the looks and keeping the last target. */
function openerFor(dataDir: string, flags: Record<string, string> = {}) {
  const found: DaemonTarget[] = [];
  const opener = createLinkOpener(async () => {
    const target = await resolveTarget({ positionals: [], flags: { 'data-dir': dataDir, ...flags } }, io);
    found.push(target);
    return target;
  });
  openers.push(opener);
  return { opener, found };
}

/** A gateway on port 0 and, in `dataDir`, the token file and daemon.json a daemon writes when it starts. */
async function startDaemonIn(dataDir: string): Promise<GatewayHarness> {
  const harness = await startGatewayHarness();
  harnesses.push(harness);
  await writeFile(join(dataDir, 'token'), `${TEST_TOKEN}\n`, { mode: 0o600 });
  await writeDaemonFile(dataDir, { url: harness.gateway.url, pid: process.pid, startedAt: new Date().toISOString() });
  return harness;
}

const failureOf = (opening: Promise<unknown>): Promise<unknown> =>
  opening.then(
    () => expect.fail('the link opened'),
    (err: unknown) => err,
  );

describe('createLinkOpener', () => {
  it('says what a client command says while there is no token file, and finds the daemon once it has written one', async () => {
    const dataDir = join(dir, 'later');
    await mkdir(dataDir);
    const { opener, found } = openerFor(dataDir);

    const missing = await failureOf(opener.open());
    expect(missing).toBeInstanceOf(LinkUnavailableError);
    const cause = (missing as LinkUnavailableError).cause;
    expect(isVigilError(cause, 'CLIENT_NO_TOKEN')).toBe(true);
    expect((missing as Error).message).toBe((cause as Error).message);
    expect(failureResult(missing, 'unused')).toEqual({
      content: [{ type: 'text', text: `vigil mcp: ${(cause as Error).message}` }],
      isError: true,
    });
    // Looked for again at the next open, not remembered.
    await failureOf(opener.open());

    const harness = await startDaemonIn(dataDir);
    const link = await opener.open();
    expect((await link.call('heartbeat.status')).beatCount).toBeGreaterThanOrEqual(0);
    expect(opener.where()).toBe(harness.gateway.url);
    const looks = found.length;
    expect(await opener.open()).toBe(link);
    expect(found).toHaveLength(looks);
  });

  it('looks again once its link is lost, and words an address that does not answer as a client command does', async () => {
    const dataDir = join(dir, 'lost');
    await mkdir(dataDir);
    const { opener, found } = openerFor(dataDir);
    const harness = await startDaemonIn(dataDir);
    const link = await opener.open();
    const closed = firstValueFrom(link.state$.pipe(filter((state) => state === 'closed')));
    await harness.gateway.close();
    await closed;

    const lost = await failureOf(opener.open());
    expect(lost).toBeInstanceOf(LinkUnavailableError);
    // daemon.json still names a live process (this one) that no longer answers there.
    expect((lost as Error).message).toBe(describeConnectFailure((lost as Error).cause, found.at(-1)!));
    expect((lost as Error).message).toMatch(/names a process that is running but does not answer there/);
  });

  it('words a refused token as a client command does', async () => {
    const dataDir = join(dir, 'refused');
    await mkdir(dataDir);
    await startDaemonIn(dataDir);
    const { opener } = openerFor(dataDir, { token: 'not-this-one' });
    const refused = await failureOf(opener.open());
    expect(refused).toBeInstanceOf(LinkUnavailableError);
    expect(isVigilError((refused as Error).cause, 'GATEWAY_UNAUTHORIZED')).toBe(true);
    expect((refused as Error).message).toMatch(
      /^the daemon refused the token \(HTTP 401 from .*\); the token came from --token\./,
    );
  });
});
