/**
 * Example: follow the event feed and print checkpoint and budget events as they happen (Ctrl-C to stop; `--count N`
 * stops after N). The client resumes after the last seq it saw if the daemon restarts.
 */
import { connect, type VigilEvent } from 'vigil';
import { daemonFromEnv } from './connect-from-env.js';

const countArg = process.argv.indexOf('--count');
const limit = countArg >= 0 ? Number(process.argv[countArg + 1]) : Number.POSITIVE_INFINITY;

function describe(event: VigilEvent): string {
  switch (event.type) {
    case 'checkpoint.created':
      return `checkpoint ${event.checkpointId} at beat ${event.beatCount} (${event.sizeBytes} bytes)`;
    case 'checkpoint.restored':
      return `restored ${event.checkpointId}: ${event.beatsRecovered} beats recovered, ${event.ageSeconds.toFixed(1)} s old`;
    case 'agent.budget_updated':
      return `budget ${event.budgetPct.toFixed(1)}%: $${event.spentTodayUsd.toFixed(4)} of $${event.dailyCapUsd.toFixed(2)}`;
    case 'agent.sleeping':
      return `sleeping (${event.reason}) until ${event.wakeAt ?? 'a top-up'}`;
    case 'agent.waking':
      return `waking (${event.reason})`;
    case 'agent.budget_exceeded':
      return `budget exceeded: $${event.spentTodayUsd.toFixed(4)} of $${event.dailyCapUsd.toFixed(2)}`;
    default:
      return JSON.stringify(event);
  }
}

const client = await connect(await daemonFromEnv());
let seen = 0;
const feed = client
  .subscribe(['checkpoint.*', 'agent.budget_*', 'agent.sleeping', 'agent.waking'])
  .subscribe((event) => {
    console.log(`#${event.seq} ${event.at} ${event.type}: ${describe(event)}`);
    seen += 1;
    if (seen >= limit) void stop();
  });
client.dropped$.subscribe((notice) => console.log(`(${notice.count} events dropped: this terminal fell behind)`));

async function stop(): Promise<void> {
  feed.unsubscribe();
  await client.close();
}
process.once('SIGINT', () => void stop());
