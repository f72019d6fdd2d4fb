import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CONFIG_VARIABLES,
  DEFAULT_CONFIG_ENV,
  VigilConfigSchema,
  configFromDefaults,
  loadConfig,
  parseRunArgs,
  renderEnvExample,
  unknownVariables,
  type VigilConfig,
} from '../src/config.js';
import { VigilError } from '../src/errors.js';

/** Runs `fn`, expecting it to throw a VigilError, and returns that error. */
function caught(fn: () => unknown): VigilError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(VigilError);
    return err as VigilError;
  }
  throw new Error('expected a VigilError, nothing was thrown');
}

const tmp = mkdtempSync(join(tmpdir(), 'vigil-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * The error code `loadConfig` gives for `VIGIL_IDENTITY_FILE=path` ('loaded' if none). Root reads any file whatever its
 * mode (and CI runs as root), so there the check runs in a child process as `nobody`, for whom mode 000 means unreadable.
 */
function identityFileCode(path: string): string {
  if (process.getuid?.() !== 0) {
    try {
      loadConfig({ VIGIL_IDENTITY_FILE: path });
      return 'loaded';
    } catch (err) {
      return (err as VigilError).code;
    }
  }
  // `nobody` may pass through the scratch dir, so the file's own mode is what refuses it.
  chmodSync(tmp, 0o711);
  const config = pathToFileURL(fileURLToPath(new URL('../src/config.ts', import.meta.url))).href;
  const script = `const { loadConfig } = await import(${JSON.stringify(config)});
try { loadConfig({ VIGIL_IDENTITY_FILE: ${JSON.stringify(path)} }); console.log('loaded'); } catch (err) { console.log(err.code); }`;
  const nobody = 65534;
  return execFileSync(nodeForAnyone(), ['--import', 'tsx', '--input-type=module', '-e', script], {
    uid: nobody,
    gid: nobody,
    encoding: 'utf8',
  }).trim();
}

/**
 * A Node.js binary `nobody` may run: this one, unless it lives under a directory others cannot enter (CI runs the
 * suite on a line fetched into root's npm cache); then the machine's own.
 */
function nodeForAnyone(): string {
  const reachable = (path: string): boolean => {
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir))
      if ((statSync(dir).mode & 0o001) === 0) return false;
    return existsSync(path) && (statSync(path).mode & 0o001) !== 0;
  };
  return [process.execPath, '/usr/local/bin/node', '/usr/bin/node'].find(reachable) ?? process.execPath;
}

const EXPECTED_DEFAULTS: Array<[keyof VigilConfig, unknown]> = [
  ['dataDir', './data'],
  ['host', '127.0.0.1'],
  ['allowedHosts', []],
  ['allowedOrigins', []],
  ['publicUrl', undefined],
  ['port', 7420],
  ['token', undefined],
  ['thinker', 'offline'],
  ['model', 'claude-sonnet-5-5'],
  ['identityFile', undefined],
  ['beatMs', 1000],
  ['beatMinMs', 100],
  ['beatMaxMs', 60000],
  ['checkpointEnabled', true],
  ['checkpointIntervalBeats', 50],
  ['checkpointMaxCount', 10],
  ['dailyBudgetUsd', 5],
  ['timezone', 'UTC'],
  ['windDownPct', 90],
  ['hardStopPct', 110],
  ['debriefAfterS', 30],
  ['logLevel', 'info'],
  ['wmCapacity', 7],
  ['swarmConcurrency', 3],
  ['taskDeadlineMs', 600_000],
  ['taskMaxCostUsd', 0.5],
  ['webhookTimeoutMs', 10_000],
  ['webhookRetryHours', 24],
  ['webhookBacklogMax', 100_000],
  ['webhookAllowPrivate', false],
  ['eventJournalSize', 10000],
  ['conversationMaxMessages', 10000],
  ['ledgerChargeDays', 30],
  ['toolCallRetentionDays', 30],
  ['memoryMaxCount', 100_000],
  ['maxSubscriptions', 16],
  ['maxConnections', 256],
  ['sessionHours', 12],
  ['subscriberBuffer', 1000],
  ['busyStrategy', 'interrupt'],
  ['maxToolIterations', 8],
  ['contextTokens', 16000],
  ['stuckTurnS', 600],
  ['offlineCostUsd', 0],
  ['pricingOverrides', {}],
  ['mcp', { mcpServers: {} }],
  ['channels', { channels: {} }],
  [
    'mcpServerTools',
    ['send_message', 'get_reply', 'get_status', 'get_conversation', 'search_memory', 'list_goals', 'add_goal'],
  ],
  ['anthropicApiKey', undefined],
  ['anthropicBaseUrl', undefined],
  ['anthropicTimeoutMs', 120000],
  ['openaiApiKey', undefined],
  ['openaiBaseUrl', undefined],
  ['openaiTimeoutMs', 120000],
  ['embeddingsUrl', undefined],
  ['embeddingsModel', undefined],
  ['embeddingsApiKey', undefined],
  ['embeddingsPricePerMTok', undefined],
  ['embeddingsTimeoutMs', 30000],
  ['cacheTtl', '5m'],
  ['rpcRateLimit', 200],
  ['rpcRateBurst', 1000],
  ['checkpointKey', undefined],
  ['traceContent', false],
  ['traceMaxCount', 1000],
  ['traceMaxAgeDays', 30],
  ['otlpEndpoint', undefined],
  ['otlpTracesEndpoint', undefined],
  ['otlpProtocol', 'http/protobuf'],
  ['otlpTracesProtocol', undefined],
  ['otelServiceName', undefined],
  ['otelBspScheduleDelayMs', 5000],
  ['otelBspMaxQueueSize', 2048],
  ['otelBspMaxExportBatchSize', 512],
  ['otelBspExportTimeoutMs', 30000],
];

describe('loadConfig', () => {
  it.each(EXPECTED_DEFAULTS)('defaults %s when its variable is unset', (key, expected) => {
    expect(loadConfig({})[key]).toEqual(expected);
  });

  it('validates VIGIL_CONTEXT_TOKENS (CONTRACT §9) with its bounds, defaulting to 16000', () => {
    expect(CONFIG_VARIABLES.find((v) => v.name === 'VIGIL_CONTEXT_TOKENS')).toMatchObject({
      key: 'contextTokens',
      default: '16000',
    });
    expect(loadConfig({ VIGIL_CONTEXT_TOKENS: '4096' }).contextTokens).toBe(4096);
    expect(loadConfig({ VIGIL_CONTEXT_TOKENS: '200000' }).contextTokens).toBe(200_000);
    expect(caught(() => loadConfig({ VIGIL_CONTEXT_TOKENS: '1000001' })).message).toBe(
      'VIGIL_CONTEXT_TOKENS="1000001" is invalid: expected an integer number of tokens from 4096 to 1000000.',
    );
  });

  it('has a default test for every field of the schema', () => {
    expect(EXPECTED_DEFAULTS.map(([key]) => key).sort()).toEqual(Object.keys(VigilConfigSchema.shape).sort());
  });

  it('reads every kind of value from the environment', () => {
    const config = loadConfig({
      VIGIL_DATA_DIR: '/var/lib/vigil',
      VIGIL_PORT: '0',
      VIGIL_TOKEN: 'secret-token-0123456789abcdef',
      VIGIL_CHECKPOINT_ENABLED: 'No',
      VIGIL_DAILY_BUDGET_USD: '0.25',
      VIGIL_TIMEZONE: 'Europe/Berlin',
      VIGIL_LOG_LEVEL: 'silent',
      VIGIL_OFFLINE_COST_USD: '0.01',
      VIGIL_PRICING_JSON: '{"m":{"inputPerMTok":1,"outputPerMTok":2,"cacheWritePerMTok":1.25,"cacheReadPerMTok":0.1}}',
      ANTHROPIC_BASE_URL: 'http://localhost:8080',
      VIGIL_CACHE_TTL: '1h',
    });
    expect(config).toMatchObject({
      dataDir: '/var/lib/vigil',
      port: 0,
      token: 'secret-token-0123456789abcdef',
      checkpointEnabled: false,
      dailyBudgetUsd: 0.25,
      timezone: 'Europe/Berlin',
      logLevel: 'silent',
      offlineCostUsd: 0.01,
      pricingOverrides: { m: { inputPerMTok: 1, outputPerMTok: 2, cacheWritePerMTok: 1.25, cacheReadPerMTok: 0.1 } },
      anthropicBaseUrl: 'http://localhost:8080',
      cacheTtl: '1h',
    });
  });

  it.each(['true', '1', 'yes', 'YES', ' True '])('reads boolean %j as true', (text) => {
    expect(loadConfig({ VIGIL_CHECKPOINT_ENABLED: text }).checkpointEnabled).toBe(true);
  });

  it.each(['false', '0', 'no', 'FALSE'])('reads boolean %j as false', (text) => {
    expect(loadConfig({ VIGIL_CHECKPOINT_ENABLED: text }).checkpointEnabled).toBe(false);
  });

  it('treats an empty variable as unset', () => {
    const config = loadConfig({ VIGIL_PORT: '', VIGIL_TOKEN: '  ' });
    expect(config.port).toBe(7420);
    expect(config.token).toBeUndefined();
  });

  it.each<[string, string]>([
    ['VIGIL_PORT', '70000'],
    ['VIGIL_PORT', '-1'],
    ['VIGIL_PORT', '80.5'],
    ['VIGIL_PORT', 'http'],
    ['VIGIL_PORT', '1e3'],
    ['VIGIL_THINKER', 'gpt'],
    ['OPENAI_BASE_URL', 'localhost:11434'],
    ['VIGIL_OPENAI_TIMEOUT_MS', '0'],
    ['VIGIL_BEAT_MS', '0'],
    ['VIGIL_BEAT_MS', '50'],
    ['VIGIL_BEAT_MS', '70000'],
    ['VIGIL_BEAT_MIN_MS', '-5'],
    ['VIGIL_BEAT_MIN_MS', '70000'],
    ['VIGIL_BEAT_MAX_MS', '3000000000'],
    ['VIGIL_BEAT_MAX_MS', '500'],
    ['VIGIL_CHECKPOINT_ENABLED', 'maybe'],
    ['VIGIL_CHECKPOINT_INTERVAL_BEATS', '0'],
    ['VIGIL_CHECKPOINT_INTERVAL_BEATS', '2.5'],
    ['VIGIL_CHECKPOINT_MAX_COUNT', '0'],
    ['VIGIL_DAILY_BUDGET_USD', '0'],
    ['VIGIL_DAILY_BUDGET_USD', 'five'],
    ['VIGIL_TIMEZONE', 'Mars/Olympus'],
    ['VIGIL_WIND_DOWN_PCT', '0'],
    ['VIGIL_WIND_DOWN_PCT', '110'],
    ['VIGIL_HARD_STOP_PCT', '-10'],
    ['VIGIL_HARD_STOP_PCT', '80'],
    ['VIGIL_DEBRIEF_AFTER_S', '-1'],
    ['VIGIL_SESSION_HOURS', '0'],
    ['VIGIL_SESSION_HOURS', '721'],
    ['VIGIL_LOG_LEVEL', 'verbose'],
    ['VIGIL_WM_CAPACITY', '0'],
    ['VIGIL_SWARM_CONCURRENCY', 'many'],
    ['VIGIL_TASK_DEADLINE_MS', '0'],
    ['VIGIL_TASK_DEADLINE_MS', '1.5'],
    ['VIGIL_TASK_MAX_COST_USD', '0'],
    ['VIGIL_TASK_MAX_COST_USD', 'cheap'],
    ['VIGIL_WEBHOOK_TIMEOUT_MS', '0'],
    ['VIGIL_WEBHOOK_RETRY_HOURS', '1.5'],
    ['VIGIL_WEBHOOK_BACKLOG_MAX', '-1'],
    ['VIGIL_OFFLINE_COST_USD', '-0.01'],
    ['VIGIL_PRICING_JSON', 'not json'],
    ['VIGIL_PRICING_JSON', '[]'],
    ['VIGIL_PRICING_JSON', '{"m":{"inputPerMTok":1}}'],
    ['VIGIL_PRICING_JSON', '{"m":{"inputPerMTok":-1,"outputPerMTok":2,"cacheWritePerMTok":1,"cacheReadPerMTok":1}}'],
    ['ANTHROPIC_BASE_URL', 'ftp://example.com'],
    ['VIGIL_PUBLIC_URL', 'vigil.example.com'],
    ['VIGIL_PUBLIC_URL', 'ftp://vigil.example.com'],
    ['VIGIL_PUBLIC_URL', 'https://vigil.example.com/?x=1'],
    ['VIGIL_PUBLIC_URL', 'https://vigil.example.com/#top'],
    ['VIGIL_PUBLIC_URL', 'https://user:pw@vigil.example.com'],
    ['VIGIL_CONVERSATION_MAX_MESSAGES', '99'],
    ['VIGIL_CONVERSATION_MAX_MESSAGES', 'all'],
    ['VIGIL_LEDGER_CHARGE_DAYS', '0'],
    ['VIGIL_LEDGER_CHARGE_DAYS', '1.5'],
    ['VIGIL_TOOL_CALL_RETENTION_DAYS', '0'],
    ['VIGIL_TOOL_CALL_RETENTION_DAYS', '3651'],
    ['VIGIL_MEMORY_MAX_COUNT', '99'],
    ['VIGIL_MEMORY_MAX_COUNT', '10000001'],
    ['VIGIL_TRACE_CONTENT', 'sometimes'],
    ['VIGIL_TRACE_MAX_COUNT', '0'],
    ['VIGIL_TRACE_MAX_AGE_DAYS', '-1'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'localhost:4318'],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'grpc://collector:4317'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'http/xml'],
    ['OTEL_BSP_SCHEDULE_DELAY', '-1'],
    ['OTEL_BSP_MAX_QUEUE_SIZE', '0'],
    ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'lots'],
    ['OTEL_BSP_EXPORT_TIMEOUT', '0'],
    ['VIGIL_CACHE_TTL', '10m'],
    ['VIGIL_CACHE_TTL', '1H'],
    ['VIGIL_CONTEXT_TOKENS', '4095'],
    ['VIGIL_CONTEXT_TOKENS', '8000.5'],
    ['VIGIL_CONTEXT_TOKENS', 'lots'],
  ])('rejects %s=%j with CONFIG_INVALID naming the variable and the value', (variable, value) => {
    const err = caught(() => loadConfig({ [variable]: value }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain(`${variable}=${JSON.stringify(value)} is invalid: expected`);
    expect(err.data).toMatchObject({ variable, value, allowed: expect.stringMatching(/^expected /) });
  });

  it('reads VIGIL_PUBLIC_URL, a path included', () => {
    expect(loadConfig({ VIGIL_PUBLIC_URL: 'https://vigil.example.com/agent' }).publicUrl).toBe(
      'https://vigil.example.com/agent',
    );
  });

  it('reads the OpenTelemetry export settings from the standard OTEL_* variables', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'vigil-prod',
      OTEL_BSP_SCHEDULE_DELAY: '250',
      OTEL_BSP_MAX_QUEUE_SIZE: '64',
    });
    expect(config).toMatchObject({
      otlpEndpoint: 'http://collector:4318',
      otlpProtocol: 'http/protobuf',
      otlpTracesProtocol: 'http/json',
      otelServiceName: 'vigil-prod',
      otelBspScheduleDelayMs: 250,
      otelBspMaxQueueSize: 64,
    });
  });

  it('refuses the gRPC protocol, saying Vigil exports over HTTP', () => {
    const err = caught(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }));
    expect(err.message).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is invalid: expected "http/protobuf" or "http/json" (Vigil exports OTLP over HTTP; gRPC is not supported).',
    );
  });

  it('phrases the message as a sentence saying what is allowed', () => {
    const err = caught(() => loadConfig({ VIGIL_PORT: '70000' }));
    expect(err.message).toBe('VIGIL_PORT="70000" is invalid: expected an integer from 0 to 65535.');
  });

  it('wants 128 bits in VIGIL_TOKEN: 32 hex digits, or 22 base64url or base64 characters, and never shows it', () => {
    const accepted = [
      'ab'.repeat(16), // openssl rand -hex 16
      'Zm9vYmFyYmF6cXV4cXV1eA', // 22 base64url characters
      'q1w2e3r4t5y6u7i8o9p0+/==', // openssl rand -base64 16: 22 characters and their padding
      `vgt_${'0'.repeat(16)}_${'A'.repeat(43)}`, // a scoped token
    ];
    for (const token of accepted) expect(loadConfig({ VIGIL_TOKEN: token }).token).toBe(token);
    // Hex is 4 bits a digit: 31 digits are too few even though 22 base64 characters would do.
    for (const token of [
      'x',
      'ab'.repeat(15) + 'a',
      'Zm9vYmFyYmF6cXV4cXV1e',
      'q1w2e3r4t5y6u7i8o9p0+==',
      'a pass phrase of many words',
    ]) {
      const err = caught(() => loadConfig({ VIGIL_TOKEN: token }));
      expect(err.message).toMatch(
        /^VIGIL_TOKEN="<hidden, \d+ characters>" is invalid: expected at least 128 random bits/,
      );
      if (token.length > 1) expect(err.message).not.toContain(token);
      expect(err.data).toMatchObject({ variable: 'VIGIL_TOKEN' });
    }
  });

  it('lists every invalid variable, one per line', () => {
    const err = caught(() => loadConfig({ VIGIL_PORT: 'x', VIGIL_LOG_LEVEL: 'loud' }));
    expect(err.message.split('\n')).toEqual([
      'VIGIL_PORT="x" is invalid: expected an integer from 0 to 65535.',
      'VIGIL_LOG_LEVEL="loud" is invalid: expected one of fatal, error, warn, info, debug, trace, silent.',
    ]);
    expect(err.data).toMatchObject({
      variable: 'VIGIL_PORT',
      problems: [{ variable: 'VIGIL_PORT' }, { variable: 'VIGIL_LOG_LEVEL' }],
    });
  });

  it('accepts a real IANA zone and rejects a bogus one', () => {
    expect(loadConfig({ VIGIL_TIMEZONE: 'Europe/Berlin' }).timezone).toBe('Europe/Berlin');
    expect(caught(() => loadConfig({ VIGIL_TIMEZONE: 'Mars/Olympus' })).data).toMatchObject({
      variable: 'VIGIL_TIMEZONE',
    });
  });

  it.each<[Record<string, string>, string]>([
    [{ VIGIL_BEAT_MAX_MS: '500' }, 'VIGIL_BEAT_MAX_MS="500" is invalid: expected at least VIGIL_BEAT_MS (1000).'],
    [{ VIGIL_BEAT_MIN_MS: '2000' }, 'VIGIL_BEAT_MIN_MS="2000" is invalid: expected at most VIGIL_BEAT_MS (1000).'],
    [{ VIGIL_BEAT_MS: '50' }, 'VIGIL_BEAT_MS="50" is invalid: expected at least VIGIL_BEAT_MIN_MS (100).'],
    [
      { VIGIL_BEAT_MS: '50', VIGIL_BEAT_MIN_MS: '60' },
      'VIGIL_BEAT_MS="50" is invalid: expected at least VIGIL_BEAT_MIN_MS (60).',
    ],
    [
      { VIGIL_HARD_STOP_PCT: '80' },
      'VIGIL_HARD_STOP_PCT="80" is invalid: expected more than VIGIL_WIND_DOWN_PCT (90).',
    ],
    [
      { VIGIL_WIND_DOWN_PCT: '120' },
      'VIGIL_WIND_DOWN_PCT="120" is invalid: expected less than VIGIL_HARD_STOP_PCT (110).',
    ],
  ])('blames the variable that was set when %j breaks a relation', (env, message) => {
    expect(caught(() => loadConfig(env)).message).toBe(message);
  });

  it('accepts beat bounds in order and a wind-down below the hard stop', () => {
    const config = loadConfig({
      VIGIL_BEAT_MIN_MS: '10',
      VIGIL_BEAT_MS: '10',
      VIGIL_BEAT_MAX_MS: '10',
      VIGIL_WIND_DOWN_PCT: '50',
      VIGIL_HARD_STOP_PCT: '50.5',
    });
    expect(config).toMatchObject({ beatMinMs: 10, beatMs: 10, beatMaxMs: 10, windDownPct: 50, hardStopPct: 50.5 });
  });

  it('requires ANTHROPIC_API_KEY for the anthropic thinker, naming it', () => {
    const err = caught(() => loadConfig({ VIGIL_THINKER: 'anthropic' }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('ANTHROPIC_API_KEY');
    expect(err.data).toMatchObject({ variable: 'ANTHROPIC_API_KEY', value: undefined });
    expect(loadConfig({ VIGIL_THINKER: 'anthropic', ANTHROPIC_API_KEY: 'sk-test' })).toMatchObject({
      thinker: 'anthropic',
      anthropicApiKey: 'sk-test',
    });
  });

  it('requires OPENAI_API_KEY for the openai thinker only when no OPENAI_BASE_URL names another server, naming it', () => {
    const err = caught(() => loadConfig({ VIGIL_THINKER: 'openai', VIGIL_MODEL: 'gpt-5-mini' }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.data).toMatchObject({ variable: 'OPENAI_API_KEY', value: undefined });
    expect(loadConfig({ VIGIL_THINKER: 'openai', VIGIL_MODEL: 'gpt-5-mini', OPENAI_API_KEY: 'sk-test' })).toMatchObject(
      { thinker: 'openai', openaiApiKey: 'sk-test' },
    );
    const local = loadConfig({
      VIGIL_THINKER: 'openai',
      VIGIL_MODEL: 'llama3.2',
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
    });
    expect(local).toMatchObject({ thinker: 'openai', model: 'llama3.2', openaiBaseUrl: 'http://localhost:11434/v1' });
    expect(local.openaiApiKey).toBeUndefined();
  });

  it('requires VIGIL_EMBEDDINGS_MODEL with VIGIL_EMBEDDINGS_URL (and the URL with the model), naming the one missing', () => {
    const noModel = caught(() => loadConfig({ VIGIL_EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1' }));
    expect(noModel.code).toBe('CONFIG_INVALID');
    expect(noModel.data).toMatchObject({ variable: 'VIGIL_EMBEDDINGS_MODEL', value: undefined });
    const noUrl = caught(() => loadConfig({ VIGIL_EMBEDDINGS_MODEL: 'nomic-embed-text' }));
    expect(noUrl.data).toMatchObject({ variable: 'VIGIL_EMBEDDINGS_URL', value: undefined });
    const badPrice = caught(() =>
      loadConfig({
        VIGIL_EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1',
        VIGIL_EMBEDDINGS_MODEL: 'nomic-embed-text',
        VIGIL_EMBEDDINGS_PRICE_PER_MTOK: '-1',
      }),
    );
    expect(badPrice.data).toMatchObject({ variable: 'VIGIL_EMBEDDINGS_PRICE_PER_MTOK' });
    expect(
      loadConfig({
        VIGIL_EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1',
        VIGIL_EMBEDDINGS_MODEL: 'nomic-embed-text',
        VIGIL_EMBEDDINGS_PRICE_PER_MTOK: '0',
      }),
    ).toMatchObject({
      embeddingsUrl: 'http://127.0.0.1:11434/v1',
      embeddingsModel: 'nomic-embed-text',
      embeddingsPricePerMTok: 0,
    });
  });

  it('refuses the openai thinker with the default Claude model, naming VIGIL_MODEL', () => {
    const err = caught(() => loadConfig({ VIGIL_THINKER: 'openai', OPENAI_BASE_URL: 'http://localhost:11434/v1' }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.data).toMatchObject({ variable: 'VIGIL_MODEL' });
    expect(err.message).toContain('VIGIL_THINKER=openai has no default model');
  });

  it('lets flags override the environment', () => {
    const env = { VIGIL_DATA_DIR: '/env', VIGIL_HOST: '0.0.0.0', VIGIL_PORT: '1', VIGIL_THINKER: 'anthropic' };
    const config = loadConfig(env, { dataDir: '/flag', host: 'localhost', port: '2', thinker: 'offline' });
    expect(config).toMatchObject({ dataDir: '/flag', host: 'localhost', port: 2, thinker: 'offline' });
  });

  it('names both the flag and the variable when a flag is invalid', () => {
    const err = caught(() => loadConfig({ VIGIL_PORT: '1' }, { port: '99999' }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toBe('--port (VIGIL_PORT)="99999" is invalid: expected an integer from 0 to 65535.');
    expect(err.data).toMatchObject({ variable: 'VIGIL_PORT', flag: '--port', value: '99999' });
  });

  it('checks that VIGIL_IDENTITY_FILE exists', () => {
    const path = join(tmp, 'identity.md');
    writeFileSync(path, 'You are Vigil.');
    expect(loadConfig({ VIGIL_IDENTITY_FILE: path }).identityFile).toBe(path);
    const missing = caught(() => loadConfig({ VIGIL_IDENTITY_FILE: join(tmp, 'missing.md') }));
    expect(missing.code).toBe('CONFIG_INVALID');
    expect(missing.data).toMatchObject({ variable: 'VIGIL_IDENTITY_FILE' });
    expect(caught(() => loadConfig({ VIGIL_IDENTITY_FILE: tmp })).code).toBe('CONFIG_INVALID');
  });

  it('rejects an unreadable VIGIL_IDENTITY_FILE', () => {
    const path = join(tmp, 'locked.md');
    writeFileSync(path, 'secret');
    chmodSync(path, 0o000);
    expect(identityFileCode(path)).toBe('CONFIG_INVALID');
  });
});

describe('loadConfig: VIGIL_MCP_CONFIG', () => {
  const file = (name: string, text: string): string => {
    const path = join(tmp, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads the servers of the file it names', () => {
    const path = file(
      'mcp-good.json',
      JSON.stringify({
        mcpServers: {
          files: {
            command: 'npx',
            args: ['-y', 'some-server', tmp],
            env: { TOKEN: 't' },
            cwd: tmp,
            allowedTools: ['read'],
            idempotentTools: ['read'],
          },
          'web-search': {
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer x' },
            requireApproval: true,
            timeoutMs: 5000,
          },
        },
        // Other programs' settings in the same file are left alone.
        globalShortcut: 'Ctrl+Space',
      }),
    );
    expect(loadConfig({ VIGIL_MCP_CONFIG: path }).mcp.mcpServers).toEqual({
      files: {
        command: 'npx',
        args: ['-y', 'some-server', tmp],
        env: { TOKEN: 't' },
        cwd: tmp,
        allowedTools: ['read'],
        idempotentTools: ['read'],
      },
      'web-search': {
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer x' },
        requireApproval: true,
        timeoutMs: 5000,
      },
    });
  });

  it.each([
    ['a missing file', () => join(tmp, 'no-such-mcp.json'), /expected a readable JSON file \(ENOENT/],
    ['a file that is not JSON', () => file('mcp-broken.json', '{"mcpServers": {'), /expected the file to hold JSON/],
    [
      'a bad field, naming the server and the field',
      () => file('mcp-field.json', '{"mcpServers": {"fs": {"command": "x", "args": "-y"}}}'),
      /expected args as a list of strings \(problem at mcpServers\.fs\.args\)/,
    ],
    [
      'a misspelt field',
      () => file('mcp-typo.json', '{"mcpServers": {"fs": {"command": "x", "allowedTool": ["a"]}}}'),
      /unknown field "allowedTool" .*\(problem at mcpServers\.fs\)/,
    ],
    [
      'a server name with __',
      () => file('mcp-name.json', '{"mcpServers": {"my__fs": {"command": "x"}}}'),
      /expected a server name .*\(problem at mcpServers\.my__fs\)/,
    ],
    [
      'an entry with neither command nor url',
      () => file('mcp-neither.json', '{"mcpServers": {"fs": {"args": []}}}'),
      /either "command" .* or "url"/,
    ],
    [
      'a cwd that is not a directory',
      () =>
        file(
          'mcp-cwd.json',
          `{"mcpServers": {"fs": {"command": "x", "cwd": ${JSON.stringify(join(tmp, 'nowhere'))}}}}`,
        ),
      /expected "cwd" to be an existing directory.*\(problem at mcpServers\.fs\.cwd\)/,
    ],
  ])('refuses %s with CONFIG_INVALID naming VIGIL_MCP_CONFIG and the path', (_what, pathOf, message) => {
    const path = pathOf();
    const err = caught(() => loadConfig({ VIGIL_MCP_CONFIG: path }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain(`VIGIL_MCP_CONFIG=${JSON.stringify(path)} is invalid: `);
    expect(err.message).toMatch(message);
    expect(err.data).toMatchObject({ variable: 'VIGIL_MCP_CONFIG', value: path });
  });

  it('takes the servers as an object from code, validated the same way', () => {
    expect(configFromDefaults({ mcp: { mcpServers: { fs: { command: 'x' } } } }).mcp.mcpServers).toEqual({
      fs: { command: 'x' },
    });
    const err = caught(() => configFromDefaults({ mcp: { mcpServers: { 'bad name': { command: 'x' } } } }));
    expect(err.message).toMatch(/^mcp \(VIGIL_MCP_CONFIG\)=.* is invalid: expected a server name/);
  });
});

describe('loadConfig: VIGIL_MCP_SERVER_TOOLS', () => {
  it('reads a comma-separated list of the MCP server tools, spaces and empty items ignored', () => {
    expect(loadConfig({ VIGIL_MCP_SERVER_TOOLS: ' get_status, send_message,' }).mcpServerTools).toEqual([
      'get_status',
      'send_message',
    ]);
  });

  it('refuses an unknown tool name, naming the variable and the tool', () => {
    expect(() => loadConfig({ VIGIL_MCP_SERVER_TOOLS: 'get_status,approve' })).toThrow(
      /^VIGIL_MCP_SERVER_TOOLS="get_status,approve" is invalid: unknown tool "approve": expected a comma-separated list of tool names from send_message, /,
    );
    expect(() => loadConfig({ VIGIL_MCP_SERVER_TOOLS: ',' })).toThrow(/VIGIL_MCP_SERVER_TOOLS=",".*at least one/);
  });
});

describe('configFromDefaults', () => {
  it('equals the configuration of an empty environment', () => {
    expect(configFromDefaults()).toEqual(loadConfig({}));
  });

  it('applies and validates overrides', () => {
    expect(configFromDefaults({ port: 0, beatMs: 100, token: undefined })).toMatchObject({ port: 0, beatMs: 100 });
    const err = caught(() => configFromDefaults({ port: 70000 }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.data).toMatchObject({ variable: 'VIGIL_PORT', value: 70000 });
    expect(caught(() => configFromDefaults({ windDownPct: 120 })).code).toBe('CONFIG_INVALID');
  });
});

describe('parseRunArgs', () => {
  it('reads every flag of vigil run', () => {
    const args = parseRunArgs(['--data-dir', 'd', '--host=h', '--port', '0', '--thinker', 'offline', '--repair']);
    expect(args).toEqual({ flags: { dataDir: 'd', host: 'h', port: '0', thinker: 'offline' }, repair: true });
  });

  it('returns no flags and no repair for no arguments', () => {
    expect(parseRunArgs([])).toEqual({ flags: {}, repair: false });
  });

  it.each([[['--bogus']], [['--port']], [['--port', '--host', 'h']], [['--host=']], [['extra']], [['--repair=yes']]])(
    'rejects %j with CLI_USAGE',
    (argv) => {
      expect(caught(() => parseRunArgs(argv)).code).toBe('CLI_USAGE');
    },
  );
});

describe('unknownVariables', () => {
  it('names each VIGIL_* variable no setting reads, with the nearest known one', () => {
    const env = {
      VIGIL_BEAT_MSS: '20',
      VIGIL_PRT: '1',
      VIGIL_CHECKPOINT_INTERVAL: '5',
      VIGIL_PORT: '7420',
      PATH: '/bin',
    };
    expect(unknownVariables(env)).toEqual([
      { name: 'VIGIL_BEAT_MSS', suggestion: 'VIGIL_BEAT_MS' },
      { name: 'VIGIL_CHECKPOINT_INTERVAL', suggestion: 'VIGIL_CHECKPOINT_INTERVAL_BEATS' },
      { name: 'VIGIL_PRT', suggestion: 'VIGIL_PORT' },
    ]);
  });

  it('suggests nothing when no known name is near, and ignores other prefixes and unset entries', () => {
    expect(
      unknownVariables({ VIGIL_FOO: 'x', VIGIL_BEAT_MSX: undefined, vigil_port: '1', ANTHROPIC_API_KEYS: 'k' }),
    ).toEqual([{ name: 'VIGIL_FOO', suggestion: undefined }]);
  });

  it('knows every variable of the configuration', () => {
    expect(unknownVariables({ ...DEFAULT_CONFIG_ENV, VIGIL_TOKEN: 't', VIGIL_CHECKPOINT_KEY: 'k' })).toEqual([]);
  });
});

describe('.env.example', () => {
  const text = readFileSync(fileURLToPath(new URL('../.env.example', import.meta.url)), 'utf8');
  const listed = new Map(
    [...text.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1] ?? '', m[2] === '' ? undefined : m[2]]),
  );

  it('lists exactly the variables the schema knows, with their defaults', () => {
    expect(new Set(CONFIG_VARIABLES.map((v) => v.key))).toEqual(new Set(Object.keys(VigilConfigSchema.shape)));
    expect(Object.fromEntries(listed)).toEqual({ ...DEFAULT_CONFIG_ENV });
  });

  it('is what renderEnvExample() writes', () => {
    expect(text).toBe(renderEnvExample());
  });

  it('has defaults that pass validation', () => {
    const env = Object.fromEntries([...listed].filter(([, v]) => v !== undefined));
    expect(loadConfig(env)).toEqual(loadConfig({}));
  });
});
