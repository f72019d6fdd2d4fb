/**
 * Bench 17: webhooks. (a) Throughput: a runtime on real LevelDB with the real outbox and the real POST (`node:http`)
 * to a local receiver that verifies every signature with the `standardwebhooks` package; a burst of journaled events
 * of the endpoint's type, timed from the first published to the last verified, against the 1,000 events/s
 * per endpoint. (b) The idle beat with one dead endpoint (connection refused) and one that answers after ten seconds,
 * against the idle beat with none: two runtimes on simulated clocks driven beat for beat in alternating repetitions,
 * as in bench 1.
 */
import { createRuntime } from '../src/runtime/create-runtime.js';
import { createSimulatedClock } from '../src/shared/clock.js';
import { internalsOf, median, withTempDir } from './bench-utils.js';
import { drive, START, startIdleRuntime } from './idle-beat.bench.js';
import { pairedRatioCheck, ratioCheck, sanity, type BenchOutcome } from './report.js';
import { deadUrl, startSlowReceiver, startVerifyingReceiver } from './webhook-receiver.js';

/** How much to send and to drive. */
export interface WebhooksBenchOptions {
  /** Events in the burst (a), and bursts timed (the median burst is reported). */
  burstEvents: number;
  bursts: number;
  warmupBeats: number;
  beatsPerRep: number;
  reps: number;
  /** How long the slow endpoint takes to answer, in real ms. */
  slowAnswerMs: number;
}

export const DEFAULT_WEBHOOKS_BENCH_OPTIONS: WebhooksBenchOptions = {
  burstEvents: 5_000,
  bursts: 3,
  warmupBeats: 2_000,
  beatsPerRep: 2_000,
  reps: 11,
  slowAnswerMs: 10_000,
};

/** The target: a healthy receiver keeps up with this many events a second per endpoint. */
const TARGET_EVENTS_PER_S = 1_000;
/** The event type of the burst: an agent's reply of a realistic length (what operators send to a chat channel). */
const BURST_TYPE = 'agent.reply';
const REPLY_TEXT =
  'The nightly build failed on the integration suite: two tests time out against the staging database. I opened a ticket and paused the deploy until someone looks at it.';

/** Runs bench 17. */
export async function webhooksBench(
  options: WebhooksBenchOptions = DEFAULT_WEBHOOKS_BENCH_OPTIONS,
): Promise<BenchOutcome> {
  const throughput = await throughputBench(options);
  const idle = await idleBench(options);
  return {
    id: 'webhooks',
    title: `17. Webhooks: delivery to a healthy local receiver, and the idle beat beside a dead and a ${options.slowAnswerMs / 1000}-second endpoint`,
    checks: [throughput.check, idle.check],
    details: [...throughput.details, ...idle.details],
    sanity: [...throughput.sanity, ...idle.sanity],
    notes: [
      'Throughput: one endpoint, one event in flight at a time (the delivery order the contract asks for), each delivery (cursor and attempt) stored with the next batch (within 50 ms or 256 deliveries), not before the next event goes out.',
      'Idle beat: both runtimes beat on simulated clocks; the endpoints are real (a closed port, and a server in a process of its own that holds its answer, as a receiver on another machine would), so their attempts, timeouts and backoff timers run as in a daemon.',
    ],
  };
}

async function throughputBench(options: WebhooksBenchOptions) {
  return withTempDir('webhooks-throughput', async (dataDir) => {
    const receiver = await startVerifyingReceiver();
    const runtime = await createRuntime({
      config: {
        dataDir,
        thinker: 'offline',
        checkpointEnabled: false,
        beatMs: 60_000,
        beatMinMs: 60_000,
        beatMaxMs: 60_000,
      },
    });
    try {
      runtime.start();
      const added = await runtime.webhooks.add({ url: receiver.url, types: [BURST_TYPE], name: 'bench' });
      receiver.useSecret(added.secret);
      const { bus } = internalsOf(runtime).parts;
      const rates: number[] = [];
      let sent = 0;
      for (let burst = 0; burst < options.bursts; burst += 1) {
        const started = performance.now();
        for (let i = 0; i < options.burstEvents; i += 1)
          bus.emit(BURST_TYPE, { turnId: `bench-${burst}-${i}`, text: REPLY_TEXT });
        sent += options.burstEvents;
        await receiver.waitFor(sent);
        rates.push(options.burstEvents / ((performance.now() - started) / 1000));
      }
      const rate = median(rates);
      const inOrder = receiver.seqs.every((seq, i) => i === 0 || seq > receiver.seqs[i - 1]!);
      // The receiver answered the last event before its cursor was stored: the listing may lag one write behind.
      let listed = (await runtime.webhooks.list())[0];
      for (let i = 0; i < 100 && listed?.backlog !== 0; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        listed = (await runtime.webhooks.list())[0];
      }
      return {
        // As time per event against the 1 ms a thousand events a second allow: lower is better, as every check.
        check: ratioCheck(
          'webhooks.throughput',
          `time per event delivered to one healthy endpoint / the 1 ms of ${TARGET_EVENTS_PER_S} events/s`,
          { value: 1000 / rate, unit: 'ms/event', what: `${Math.round(rate)} events/s delivered` },
          { value: 1000 / TARGET_EVENTS_PER_S, unit: 'ms/event', what: 'target' },
          '<=',
          1,
        ),
        details: [
          {
            label: `delivered per second, median of ${options.bursts} bursts of ${options.burstEvents}`,
            value: rate,
            unit: 'events/s',
          },
          { label: 'delivered per second, slowest burst', value: Math.min(...rates), unit: 'events/s' },
          { label: 'delivered per second, fastest burst', value: Math.max(...rates), unit: 'events/s' },
        ],
        sanity: [
          sanity(
            'every event arrived once, signature verified, in seq order',
            receiver.verified === sent && receiver.rejected === 0 && inOrder,
            `${receiver.verified} verified of ${sent}, ${receiver.rejected} rejected, in order: ${inOrder}`,
          ),
          sanity(
            'the endpoint is ok with an empty backlog',
            listed?.state === 'ok' && listed.backlog === 0,
            `state ${listed?.state}, backlog ${listed?.backlog}`,
          ),
        ],
      };
    } finally {
      await runtime.stop();
      await receiver.close();
    }
  });
}

async function idleBench(options: WebhooksBenchOptions) {
  return withTempDir('webhooks-idle', async (root) => {
    const slow = await startSlowReceiver(options.slowAnswerMs);
    const dead = await deadUrl();
    const noneClock = createSimulatedClock(START);
    const hooksClock = createSimulatedClock(START);
    const none = await startIdleRuntime(`${root}/none`, noneClock);
    const hooks = await startIdleRuntime(`${root}/hooks`, hooksClock);
    try {
      // Both take every beat: each beat's event joins both backlogs, and the journal keeps them for the endpoints.
      await hooks.webhooks.add({ url: dead, types: ['heartbeat.beat'], name: 'dead' });
      await hooks.webhooks.add({ url: slow.url, types: ['heartbeat.beat'], name: 'slow' });
      none.start();
      hooks.start();
      await drive(noneClock, options.warmupBeats);
      await drive(hooksClock, options.warmupBeats);
      const noneUs: number[] = [];
      const hooksUs: number[] = [];
      const perBeatUs = (ms: number): number => (ms / options.beatsPerRep) * 1000;
      // Alternating repetitions share whatever drift the machine has; which one goes first alternates too.
      for (let rep = 0; rep < options.reps; rep += 1) {
        const order = rep % 2 === 0 ? ([none, hooks] as const) : ([hooks, none] as const);
        for (const runtime of order) {
          const clock = runtime === none ? noneClock : hooksClock;
          const ms = (await drive(clock, options.beatsPerRep)).totalMs;
          (runtime === none ? noneUs : hooksUs).push(perBeatUs(ms));
        }
      }
      const expected = options.warmupBeats + options.beatsPerRep * options.reps;
      const listed = await hooks.webhooks.list();
      const attempts = await Promise.all(listed.map((w) => hooks.webhooks.deliveries(w.id, 1000)));
      return {
        check: pairedRatioCheck(
          'webhooks.idle-beat',
          'idle beat: a dead and a slow endpoint / none',
          { values: hooksUs, unit: 'µs/beat', what: 'dead + slow endpoint' },
          { values: noneUs, unit: 'µs/beat', what: 'no endpoint' },
          '<=',
          1.05,
        ),
        details: [
          { label: 'with a dead and a slow endpoint, median repetition', value: median(hooksUs), unit: 'µs/beat' },
          { label: 'with none, median repetition', value: median(noneUs), unit: 'µs/beat' },
          ...listed.map((w, i) => ({
            label: `attempts at the ${w.name} endpoint`,
            value: attempts[i]!.length,
            unit: 'attempts',
          })),
        ],
        sanity: [
          sanity(
            'both runtimes beat N times',
            none.status().beatCount === expected && hooks.status().beatCount === expected,
            `beatCount ${none.status().beatCount} and ${hooks.status().beatCount}, expected ${expected}`,
          ),
          sanity(
            'both endpoints were tried and are failing, not delivered to',
            listed.length === 2 &&
              listed.every((w) => w.state === 'failing' && w.backlog > 0) &&
              attempts.every((a) => a.length > 1),
            listed
              .map((w, i) => `${w.name}: ${w.state}, backlog ${w.backlog}, ${attempts[i]!.length} attempts`)
              .join('; '),
          ),
          sanity('the slow endpoint received requests', slow.requests() > 0, `${slow.requests()} requests`),
        ],
      };
    } finally {
      await none.stop();
      await hooks.stop();
      await slow.close();
    }
  });
}
