/** The crash loop's pure checks: what a boot log and the data dir after the final stop must show, as a list of problems. */
import type { LogLine } from '../e2e/daemon-process.js';
import type { DataDirReport } from './data-dir-inspect.js';
import type { Expectations } from './crash-loop.types.js';

/** From a boot's log alone: nothing half-written was found, nothing failed, and the restore is at least the newest stored checkpoint. */
export function bootProblems(lines: readonly LogLine[], started: LogLine, expect: Expectations): string[] {
  const problems: string[] = [];
  const bad = lines.filter((l) => l.msg === 'checkpoint.corrupt' || (l.level ?? 0) >= 50);
  if (bad.length > 0) problems.push(`the boot logged ${JSON.stringify(bad)}`);
  const beatCount = Number(started['beatCount']);
  if (!(beatCount >= expect.maxCheckpointBeat)) {
    problems.push(
      `restored at beat ${beatCount}, below checkpoint beat ${expect.maxCheckpointBeat} stored before the kill`,
    );
  }
  const restoredFrom = started['restoredFrom'];
  const newest = expect.newestCheckpointId;
  if (newest !== null && (typeof restoredFrom !== 'string' || restoredFrom < newest)) {
    problems.push(`restored from ${String(restoredFrom)}, older than checkpoint ${newest} stored before the kill`);
  }
  return problems;
}

/** After the final clean stop: checkpoints all decode, bodies match the index, at most `maxCount`; money and messages kept. */
export function finalDiskProblems(
  disk: DataDirReport,
  expect: Expectations,
  maxCount: number,
  now = Date.now(),
): string[] {
  const problems: string[] = [];
  if (disk.undecodable.length > 0) problems.push(`undecodable checkpoints ${JSON.stringify(disk.undecodable)}`);
  if (disk.indexIds.join() !== disk.bodyIds.join())
    problems.push(`index ${disk.indexIds.join()} ≠ bodies ${disk.bodyIds.join()}`);
  if (disk.indexIds.length > maxCount) problems.push(`${disk.indexIds.length} checkpoints stored, max ${maxCount}`);
  const newest = disk.indexIds[0];
  if (newest === undefined || disk.beatCounts[newest]! < expect.maxCheckpointBeat) {
    problems.push(`the final checkpoint ${newest} is below beat ${expect.maxCheckpointBeat}`);
  }
  // Unless UTC midnight passed since the last boot's budget.status: the ledger's "today" is then a new day.
  const sameDay = expect.spentDay !== null && Date.parse(expect.spentDay) > now;
  if (sameDay && disk.spentTodayMicroUsd / 1_000_000 < expect.spentFloorUsd) {
    problems.push(
      `the ledger holds $${disk.spentTodayMicroUsd / 1_000_000}, below $${expect.spentFloorUsd} seen earlier`,
    );
  }
  for (const turnId of expect.ackedMessages) {
    const turn = disk.messages.filter((m) => m.turnId === turnId);
    if (!turn.some((m) => m.role === 'user'))
      problems.push(`message ${turnId}, acknowledged before a kill, is not in the log`);
    else if (!turn.some((m) => m.role === 'assistant')) problems.push(`message ${turnId} was never answered`);
  }
  return problems;
}

/** The median of `values` (NaN when empty). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
