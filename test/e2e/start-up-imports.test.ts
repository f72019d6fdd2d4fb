/** Fast start: each path of the binary loads only what it needs (a client call no daemon, the offline daemon no model SDK). */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENV, startDaemon } from './daemon-process.js';
import { ROOT, runNode } from './run-process.js';

const RECORDER = join(ROOT, 'test/fixtures/import-recorder.mjs');
// What only the daemon needs: its modules (the wire schemas aside, which the client validates with) and their packages.
const DAEMON_ONLY =
  /\/dist\/(daemon\.js|runtime\/(?!.*\.schema\.js$)|heartbeat\/|subsystems\/store\/)|\/node_modules\/(level|classic-level|xstate|pino|prom-client|@anthropic-ai|openai)\//;
const ANTHROPIC_SDK = /\/node_modules\/@anthropic-ai\/sdk\//;
const OPENAI_SDK = /\/node_modules\/openai\//;
// The OpenTelemetry SDK, its exporters and Vigil's side of them (the API alone comes with prom-client).
const OTEL_SDK =
  /\/node_modules\/@opentelemetry\/(?!api\/)|\/dist\/subsystems\/telemetry\/(otel-tracing|span-writer|bounded-span-queue)\.js$/;
// The browser's entry and transport, and the dashboard's bundle: never part of a Node process.
const BROWSER_ONLY = /\/dist\/(client\/browser(-socket)?\.js|gateway\/dashboard\/)/;

/**
 * What the daemon loads only when its configuration or data asks for it, by where each lives in src/ or node_modules
 * (`vigil run` loads its bundle: a bundled chunk's sources are read from its map). Matched against the sources, each
 * part by name, so a failure says which one came back to the boot path.
 */
const ON_DEMAND: Record<string, RegExp> = {
  // The outbox, its retry thread and its signing: a data dir with webhook endpoints, or the first webhooks.add.
  webhookOutbox:
    /^src\/subsystems\/webhooks\/webhook-(outbox|delivery|post-thread|signing|lane|ledger)\.ts$|(^|\/)node_modules\/standardwebhooks\//,
  // Semantic search's client, vector stores and indexes: VIGIL_EMBEDDINGS_URL and VIGIL_EMBEDDINGS_MODEL.
  embeddings: /^src\/subsystems\/embeddings\/(embeddings-client|semantic-index|vector-store|vector-table)\.ts$/,
  // The channel core (runner, inbox, outbox) and Telegram's text format: VIGIL_CHANNELS_CONFIG names a channel.
  channels: /^src\/subsystems\/channels\/(channel-runner|channel-inbox|channel-outbox|telegram\/telegram-html)\.ts$/,
  // Long-term memory's index (MiniSearch): the first memory read back or kept.
  memorySearch: /(^|\/)node_modules\/minisearch\//,
  // MCP OAuth's provider and the MCP SDK's client auth: an MCP server that signs in.
  oauth:
    /^src\/subsystems\/tools\/oauth\/server-auth|(^|\/)node_modules\/@modelcontextprotocol\/sdk\/(.*\/)?client\/auth\./,
  // The A2A SDK: the first POST /a2a.
  a2a: /(^|\/)node_modules\/@a2a-js\//,
  // RxJS's index, which loads all of its ~220 modules (the core imports its classes from their own modules).
  rxjsIndex: /(^|\/)node_modules\/rxjs\/(src|dist\/cjs)\/index\.(ts|js)$/,
};

/** The modules a run loaded: files as resolved, and for each chunk of the bundle the sources its map names. */
async function loadedSources(urls: readonly string[]): Promise<string[]> {
  const sources: string[] = [];
  for (const url of new Set(urls)) {
    if (!url.startsWith('file:')) continue;
    const file = fileURLToPath(url);
    if (!file.includes('/dist/bundle/')) {
      sources.push(file.slice(ROOT.length));
      continue;
    }
    const map = JSON.parse(await readFile(`${file}.map`, 'utf8')) as { sources: string[] };
    sources.push(...map.sources.map((source) => source.replace(/^(\.\.\/)+/, '')));
  }
  return sources;
}

/** Which of the on-demand parts `sources` hold. */
const onDemandLoaded = (sources: readonly string[]): string[] =>
  Object.entries(ON_DEMAND)
    .filter(([, pattern]) => sources.some((source) => pattern.test(source)))
    .map(([name]) => name);

let dir: string;
let logs = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-imports-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A fresh log file for the recorder, and the environment that turns it on. */
function recorder(): { log: string; env: Record<string, string> } {
  logs += 1;
  const log = join(dir, `imports-${logs}.log`);
  return { log, env: { VIGIL_IMPORT_LOG: log, NODE_OPTIONS: `--import=${RECORDER}` } };
}

const imported = async (log: string): Promise<string[]> => (await readFile(log, 'utf8')).trim().split('\n');

describe('what each path of `vigil` imports', () => {
  it('a client command (vigil rpc) loads no part of the daemon, and no browser code: its client runs over ws', async () => {
    const { log, env } = recorder();
    // Nothing listens on port 9: the call fails after every module it needs has loaded.
    const { code, stderr } = await runNode(
      ['bin/vigil.js', 'rpc', 'heartbeat.status', '--url', 'http://127.0.0.1:9', '--token', 't'],
      env,
    );
    expect(stderr).toMatch(/No connection to the gateway/);
    expect(code).toBe(1);
    const urls = await imported(log);
    expect(urls.some((url) => url.endsWith('/dist/client/commands/rpc.command.js'))).toBe(true);
    expect(urls.filter((url) => DAEMON_ONLY.test(url))).toEqual([]);
    expect(urls.filter((url) => BROWSER_ONLY.test(url))).toEqual([]);
    expect(urls.some((url) => url.endsWith('/dist/client/node-socket.js'))).toBe(true);
  });

  it("the daemon loads the model SDK of its own thinker only: none offline, Anthropic's for anthropic, OpenAI's for openai", async () => {
    const runs: Array<{ thinker: string; env: Record<string, string> }> = [
      { thinker: 'offline', env: {} },
      { thinker: 'anthropic', env: { ANTHROPIC_API_KEY: 'sk-unused', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' } },
      {
        thinker: 'openai',
        env: {
          OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
          VIGIL_MODEL: 'llama3.2',
          VIGIL_PRICING_JSON:
            '{"llama3.2":{"inputPerMTok":0,"outputPerMTok":0,"cacheWritePerMTok":0,"cacheReadPerMTok":0}}',
        },
      },
    ];
    const sdkLoaded: Record<string, { anthropic: boolean; openai: boolean }> = {};
    for (const run of runs) {
      const { log, env } = recorder();
      const dataDir = await mkdtemp(join(dir, `${run.thinker}-`));
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0', '--thinker', run.thinker], {
        ...FAST_ENV,
        ...run.env,
        ...env,
      });
      await daemon.waitFor((line) => line.msg === 'gateway listening');
      daemon.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
      const urls = await imported(log);
      sdkLoaded[run.thinker] = {
        anthropic: urls.some((url) => ANTHROPIC_SDK.test(url)),
        openai: urls.some((url) => OPENAI_SDK.test(url)),
      };
    }
    expect(sdkLoaded).toEqual({
      offline: { anthropic: false, openai: false },
      anthropic: { anthropic: true, openai: false },
      openai: { anthropic: false, openai: true },
    });
  });

  it('the daemon loads no OpenTelemetry SDK without OTEL_EXPORTER_OTLP_ENDPOINT; with it, the SDK and only the chosen exporter', async () => {
    const runs: Array<{ name: string; env: Record<string, string> }> = [
      { name: 'none', env: {} },
      {
        name: 'json',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      },
    ];
    const loaded: Record<string, string[]> = {};
    for (const run of runs) {
      const { log, env } = recorder();
      const dataDir = await mkdtemp(join(dir, `otel-${run.name}-`));
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], { ...FAST_ENV, ...run.env, ...env });
      await daemon.waitFor((line) => line.msg === 'gateway listening');
      daemon.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
      loaded[run.name] = (await imported(log)).filter((url) => OTEL_SDK.test(url));
    }
    expect(loaded['none']).toEqual([]);
    const json = loaded['json']!;
    expect(json.some((url) => url.includes('/node_modules/@opentelemetry/sdk-trace/'))).toBe(true);
    expect(json.some((url) => url.includes('/node_modules/@opentelemetry/exporter-trace-otlp-http/'))).toBe(true);
    expect(json.some((url) => url.includes('/node_modules/@opentelemetry/exporter-trace-otlp-proto/'))).toBe(false);
  });

  it('a plain start loads no outbox, embeddings, channel core, memory index, OAuth, A2A SDK or RxJS index; a start configured for them loads each', async () => {
    const dataDir = await mkdtemp(join(dir, 'on-demand-'));
    const plain = recorder();
    const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], {
      ...FAST_ENV,
      VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
      ...plain.env,
    });
    // A failed expectation ends the daemon too (a no-op once it has exited).
    try {
      const listening = await daemon.waitFor((line) => line.msg === 'gateway listening');
      // Read at "gateway listening": what the boot loaded, before any call.
      expect(onDemandLoaded(await loadedSources(await imported(plain.log)))).toEqual([]);
      // The first webhooks.add loads the outbox (nothing listens on port 9: no attempt needs to succeed).
      const added = await runNode([
        'bin/vigil.js',
        'rpc',
        'webhooks.add',
        JSON.stringify({ url: 'http://127.0.0.1:9/hook', types: ['goal.*'] }),
        '--url',
        String(listening['url']),
        '--data-dir',
        dataDir,
      ]);
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      // A search of an empty long-term memory needs no index: MiniSearch stays unread.
      const searched = await runNode([
        'bin/vigil.js',
        'rpc',
        'memory.search',
        JSON.stringify({ query: 'anything' }),
        '--url',
        String(listening['url']),
        '--data-dir',
        dataDir,
      ]);
      expect(searched.stdout).toMatch(/\[\]|"hits"/);
      expect(searched.code).toBe(0);
      expect(onDemandLoaded(await loadedSources(await imported(plain.log)))).toEqual(['webhookOutbox']);
      daemon.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    } finally {
      daemon.kill('SIGKILL');
    }

    // The same data dir (it has an endpoint now), with embeddings and a Telegram channel configured.
    const channels = join(dir, 'channels.json');
    await writeFile(
      channels,
      JSON.stringify({ channels: { tg: { type: 'telegram', tokenEnv: 'TG_TOKEN', apiRoot: 'http://127.0.0.1:9' } } }),
    );
    const configured = recorder();
    const again = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], {
      ...FAST_ENV,
      VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
      VIGIL_EMBEDDINGS_URL: 'http://127.0.0.1:9/v1',
      VIGIL_EMBEDDINGS_MODEL: 'nomic-embed-text',
      VIGIL_CHANNELS_CONFIG: channels,
      TG_TOKEN: '123:abc',
      ...configured.env,
    });
    try {
      await again.waitFor((line) => line.msg === 'gateway listening');
      expect(onDemandLoaded(await loadedSources(await imported(configured.log)))).toEqual([
        'webhookOutbox',
        'embeddings',
        'channels',
      ]);
      again.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      again.kill('SIGKILL');
    }
  });
});
