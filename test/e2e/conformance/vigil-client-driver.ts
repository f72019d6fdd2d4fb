/**
 * Vigil as the client of the MCP conformance suite's client mode (`conformance client --command …`): the suite starts
 * a scenario's server and runs this script with its URL as the last argument, `MCP_CONFORMANCE_SCENARIO` naming the
 * scenario and `MCP_CONFORMANCE_CONTEXT` carrying its data (pre-registered client credentials). The script starts a
 * real `vigil run` daemon (offline thinker, a fresh data dir, port 0) whose `VIGIL_MCP_CONFIG` names that server,
 * signs it in as an operator would (on each `mcp.auth_required`, the link `tools.list` gives an operate token opened
 * in "the browser", which reaches the gateway's `/oauth/callback`), waits for the server to be up, calls one of its tools through Vigil's own tool caller
 * (the offline thinker's `/tool` command sent with `agent.send`), and stops the daemon. Exit 0 when the tool answered.
 *
 * Run: `node --import tsx test/e2e/conformance/vigil-client-driver.ts SERVER_URL` (test/e2e/mcp-conformance-client
 * .test.ts does, through the suite).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../../src/client/vigil-client.js';
import { startDaemon, type DaemonProcess } from '../daemon-process.js';
import { scenarioPlan } from './scenario-plan.js';
import { ServerWatch } from './server-watch.js';

/** The server's name in Vigil's config: its tools are `mcp__conformance__TOOL`. */
const SERVER = 'conformance';
/** The longest the whole run may take; the suite's own `--timeout` is set above it, so a hang is reported by us. */
const RUN_TIMEOUT_MS = 70_000;
/**
 * Beats fast enough that a `/tool` message is taken at once, checkpoints rare: a daemon per scenario, several at a
 * time on a loaded machine, should cost little CPU.
 */
const DRIVER_ENV = {
  VIGIL_BEAT_MS: '50',
  VIGIL_BEAT_MIN_MS: '20',
  VIGIL_BEAT_MAX_MS: '100',
  VIGIL_CHECKPOINT_INTERVAL_BEATS: '1000',
  VIGIL_LOG_LEVEL: 'info',
};
/** Attempts at the tool call: a step-up sign-in (403 insufficient_scope) refuses the first and asks for another. */
const CALL_ATTEMPTS = 3;

const say = (line: string) => process.stdout.write(`[vigil-driver] ${line}\n`);

async function main(): Promise<number> {
  const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';
  const serverUrl = process.argv[2];
  if (serverUrl === undefined || scenario === '') {
    process.stderr.write('usage: MCP_CONFORMANCE_SCENARIO=NAME vigil-client-driver.ts SERVER_URL\n');
    return 2;
  }
  const plan = scenarioPlan(scenario, process.env['MCP_CONFORMANCE_CONTEXT']);
  const dir = mkdtempSync(join(tmpdir(), 'vigil-conformance-client-'));
  const config = join(dir, 'mcp.json');
  const entry = { url: serverUrl, ...(plan.oauth === undefined ? {} : { oauth: plan.oauth }) };
  writeFileSync(config, JSON.stringify({ mcpServers: { [SERVER]: entry } }));
  say(`scenario ${scenario}: ${JSON.stringify(entry)}`);
  const token = randomBytes(24).toString('base64url');
  const daemon = startDaemon(['run', '--data-dir', join(dir, 'data'), '--port', '0'], {
    ...DRIVER_ENV,
    VIGIL_TOKEN: token,
    VIGIL_MCP_CONFIG: config,
  });
  try {
    return await within(RUN_TIMEOUT_MS, drive(daemon, token, plan));
  } catch (err) {
    say(`failed: ${err instanceof Error ? err.message : String(err)}`);
    say(`daemon stderr: ${daemon.stderr()}`);
    say(`daemon's last log lines: ${JSON.stringify(daemon.lines.slice(-15))}`);
    return 1;
  } finally {
    daemon.kill('SIGTERM');
    await within(10_000, daemon.exited).catch(() => daemon.kill('SIGKILL'));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function drive(daemon: DaemonProcess, token: string, plan: ReturnType<typeof scenarioPlan>): Promise<number> {
  const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 40_000, 'gateway listening');
  const gatewayUrl = String(listening['url']);
  const client = await connect({ url: gatewayUrl, token, reconnect: false });
  const watch = new ServerWatch(client, SERVER, `${gatewayUrl}/oauth/callback`, say);
  try {
    await watch.up();
    say('the server is up');
    if (plan.tool === undefined) return 0;
    for (let attempt = 1; attempt <= CALL_ATTEMPTS; attempt += 1) {
      const signIns = watch.signIns;
      const reply = await watch.call(plan.tool.name, plan.tool.args);
      say(`reply: ${reply}`);
      if (/ returned:/.test(reply)) return 0;
      // Refused before it ran because a sign-in with more scopes is needed (step-up): once signed in again, ask again.
      // Any other failure is the answer.
      if (!(await watch.signInSince(signIns))) return 1;
      await watch.up();
    }
    return 1;
  } finally {
    watch.close();
    await client.close();
  }
}

function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no outcome in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Exit at once: a keep-alive socket to the scenario's server must not hold the suite's run open.
process.exit(await main());
