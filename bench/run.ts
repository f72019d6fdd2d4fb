/** `npm run bench`: runs every benchmark, prints the report and writes the same numbers to bench/results.json. */
import { withTempDir } from './bench-utils.js';
import { beatJitterBench } from './beat-jitter.bench.js';
import { checkpointIoBench } from './checkpoint-io.bench.js';
import { idleBeatBench } from './idle-beat.bench.js';
import { seedRealisticAgent } from './realistic-agent.js';
import { renderReport, summarise, writeJsonReport, type BenchOutcome, type BenchResult } from './report.js';
import { runGatewayBench } from './gateway.bench.js';
import { sendLatencyBench } from './send-latency.bench.js';
import { startupBench } from './startup.bench.js';
import { toolCallBench } from './tool-call.bench.js';
import { thinkTraceBench } from './think-trace.bench.js';
import { otelBench } from './otel.bench.js';
import { promptBuildBench } from './prompt-build.bench.js';
import { memorySearchBench } from './memory-search.bench.js';
import { conversationSearchBench } from './conversation-search.bench.js';
import { sealedStoreBench } from './sealed-store.bench.js';
import { mcpBench } from './mcp.bench.js';
import { schedulesBench } from './schedules.bench.js';
import { recallBench } from './recall.bench.js';
import { webhooksBench } from './webhooks.bench.js';
import { channelsBench } from './channels.bench.js';

const RESULTS_FILE = new URL('./results.json', import.meta.url);
// With --strict a missed target fails the run too (for CI); by default only a broken benchmark does.
const strict = process.argv.includes('--strict');
// `npm run bench -- --only tool-call,startup` runs just those benchmarks (by id), to work on one figure.
const onlyArg = process.argv.find((arg) => arg.startsWith('--only'));
const only =
  onlyArg === undefined
    ? null
    : new Set((onlyArg.split('=')[1] ?? process.argv[process.argv.indexOf(onlyArg) + 1] ?? '').split(','));

const results: BenchResult[] = [];

/** Runs one benchmark; a benchmark that throws is reported as a failed sanity check, and the others still run. */
async function run(id: string, title: string, bench: () => Promise<BenchOutcome>): Promise<void> {
  if (only !== null && !only.has(id)) return;
  process.stderr.write(`bench: ${title}…\n`);
  const started = performance.now();
  try {
    results.push({ ...(await bench()), durationMs: performance.now() - started });
  } catch (err) {
    results.push({
      id,
      title,
      checks: [],
      details: [],
      sanity: [
        { label: 'the benchmark ran to the end', ok: false, detail: err instanceof Error ? err.message : String(err) },
      ],
      notes: [],
      durationMs: performance.now() - started,
    });
  }
}

const started = performance.now();
await run('idle-beat', '1. Idle beat cost', () => idleBeatBench());
const needsRealisticAgent = only === null || only.has('checkpoint-io') || only.has('beat-jitter');
if (needsRealisticAgent)
  await withTempDir('agent', async (root) => {
    process.stderr.write('bench: building the realistic agent…\n');
    let seeded: Error | null = null;
    await seedRealisticAgent(root).catch((err: unknown) => {
      seeded = err instanceof Error ? err : new Error(String(err));
    });
    const needsAgent = (bench: () => Promise<BenchOutcome>) => async () => {
      if (seeded !== null) throw seeded;
      return bench();
    };
    await run(
      'checkpoint-io',
      '2. Checkpoint save and load',
      needsAgent(() => checkpointIoBench(root)),
    );
    await run(
      'beat-jitter',
      '3. Beat delay caused by a checkpoint',
      needsAgent(() => beatJitterBench(root)),
    );
  });
await run('gateway', '4. Gateway', () => runGatewayBench());
await run('send-latency', '5. Send → reply latency of a real daemon', () => sendLatencyBench());
await run('startup', '6. Start-up', () => startupBench());
await run('tool-call', '7. MCP tool call', () => toolCallBench());
await run('think-trace', '8. Think trace', () => thinkTraceBench());
await run('otel', '9. OpenTelemetry export', () => otelBench());
await run('prompt-build', '10. Prompt build at a 10,000-message history', () => promptBuildBench());
await run('memory-search', '11. Long-term memory search', () => memorySearchBench());
await run('sealed-store', '12. Sealed store: size and write cost with VIGIL_CHECKPOINT_KEY', () => sealedStoreBench());
await run('mcp', '13. MCP server: vigil mcp start-up, send_message via /mcp', () => mcpBench());
await run('schedules', '14. Schedules: idle cost and next due time', () => schedulesBench());
await run('recall', '15. Recall on LoCoMo', () => recallBench());
await run('conversation-search', '16. Conversation search at 10,000 messages', () => conversationSearchBench());
await run('webhooks', '17. Webhooks: delivery throughput, and the idle beat beside a dead and a slow endpoint', () =>
  webhooksBench(),
);
await run(
  'channels',
  '18. Channels: a Telegram message to its reply, a backlog admitted, and the idle beat beside an idle channel',
  () => channelsBench(),
);
const totalMs = performance.now() - started;

process.stdout.write(`${renderReport(results, totalMs)}\n`);
// A partial run never overwrites the whole run's results.
if (only === null) {
  await writeJsonReport(RESULTS_FILE, results, totalMs);
  process.stdout.write(`Results written to ${RESULTS_FILE.pathname}\n`);
}

const summary = summarise(results);
process.exitCode = summary.sanityFailures > 0 || (strict && summary.miss > 0) ? 1 : 0;
