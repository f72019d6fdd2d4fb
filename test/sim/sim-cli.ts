/**
 * `npm run sim`: runs the deterministic simulator from the command line.
 *
 *   npm run sim -- --seeds 1000          seeds 1 to 1000 (default: 200)
 *   npm run sim -- --seed 1234           that seed only, with every violation in full
 *   npm run sim -- --seed 1234 --seeds 50   seeds 1234 to 1283
 *   npm run sim -- --seed 1234 --trace   that seed, then its whole history: events, actions, faults, the log
 *   npm run sim -- --seeds 200 --no-channel   without the chat channel seeds may draw (as before channels)
 *   npm run sim -- --year [--days N]     a simulated year (or N days) of one agent (docs/testing.md)
 *   npm run sim -- --year --keep         the same, leaving its two data dirs (first week, whole run) to profile
 *   npm run sim -- --year --probe DIR    measures again the two dirs a --keep run left in DIR (no days simulated)
 *   npm run sim -- --year --memory-max N the year with VIGIL_MEMORY_MAX_COUNT=N (long-term memory at its bound)
 *
 * Exits 1 when a seed breaks an invariant; each failing seed prints the command that replays it.
 */
import { checkHistory } from './sim-checker.js';
import { runSeed } from './sim-run.js';
import { traceLines } from './sim-trace.js';

const args = process.argv.slice(2);
const value = (name: string): number | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : Number(args[at + 1]);
};

const probeRoot = args.includes('--probe') ? args[args.indexOf('--probe') + 1] : undefined;
// The end of a year's run, in a process of its own (sim-year-measure.ts): the figures as one line of JSON.
const measureRoot = args.includes('--measure') ? args[args.indexOf('--measure') + 1] : undefined;
if (args.includes('--year') && measureRoot !== undefined) {
  const { measureKept } = await import('./sim-year-measure.js');
  const memoryMaxCount = value('--memory-max');
  const overrides = memoryMaxCount === undefined ? {} : { memoryMaxCount };
  process.stdout.write(`${JSON.stringify(await measureKept(measureRoot, value('--seed') ?? 1, overrides))}\n`);
  process.exit(0);
}
if (args.includes('--year') && probeRoot !== undefined) {
  const { probeKept } = await import('./sim-year.js');
  process.exit((await probeKept(probeRoot, (line: string) => process.stdout.write(`${line}\n`))) ? 0 : 1);
}

if (args.includes('--year')) {
  const { runYear } = await import('./sim-year.js');
  const days = value('--days');
  const memoryMaxCount = value('--memory-max');
  const ok = await runYear({
    ...(days === undefined ? {} : { days }),
    ...(memoryMaxCount === undefined ? {} : { memoryMaxCount }),
    keep: args.includes('--keep'),
    log: (line: string) => process.stdout.write(`${line}\n`),
  });
  process.exit(ok ? 0 : 1);
}

const single = value('--seed');
const count = value('--seeds') ?? (single === undefined ? 200 : 1);
const first = single ?? 1;
const started = performance.now();
const failing: number[] = [];
const chat = { seeds: 0, messages: 0, turns: 0, strays: 0, refusedStrays: 0, cutSends: 0 };
for (let seed = first; seed < first + count; seed += 1) {
  const history = await runSeed(seed, args.includes('--no-channel') ? { channel: false } : {});
  const violations = checkHistory(history);
  if (count === 1 && args.includes('--trace')) process.stdout.write(`${traceLines(history).join('\n')}\n`);
  const channel = history.channel;
  if (channel !== null) {
    chat.seeds += 1;
    chat.messages += Object.values(channel.world.chats)
      .flat()
      .filter((m) => m.kind === 'person').length;
    chat.turns += channel.inbox.length;
    chat.strays += channel.strays;
    chat.refusedStrays += channel.refusedStrays;
    chat.cutSends += channel.cutSends;
  }
  if (violations.length === 0) {
    const about =
      channel === null
        ? ''
        : `; chat: ${channel.inbox.length} turns, ${channel.strays} stray placeholders (${channel.refusedStrays} in refused replies), ${channel.cutSends} sends whose answer was cut`;
    if (count === 1)
      process.stdout.write(
        `seed ${seed}: ok (${history.steps} steps, ${history.incarnations.length} incarnations${about})\n`,
      );
    continue;
  }
  failing.push(seed);
  const kinds = [...new Set(violations.map((v) => v.invariant))].join('; ');
  process.stdout.write(
    `seed ${seed}: ${violations.length} violations (${kinds}) — replay: npm run sim -- --seed ${seed}\n`,
  );
  for (const violation of count === 1 ? violations : violations.slice(0, 3))
    process.stdout.write(`  ${violation.invariant}: ${violation.detail}\n`);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(
  `${count} seeds in ${seconds} s: ${failing.length} failing${failing.length > 0 ? ` (${failing.join(', ')})` : ''}\n`,
);
if (chat.seeds > 0)
  process.stdout.write(
    `chat channel in ${chat.seeds} seeds: ${chat.messages} messages, ${chat.turns} turns, ${chat.strays} stray placeholders (${chat.refusedStrays} in replies refused for good), ${chat.cutSends} sends whose answer was lost or cut\n`,
  );
process.exit(failing.length > 0 ? 1 : 0);
