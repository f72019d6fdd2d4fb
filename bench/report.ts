/** The benchmark report: checks against limits measured in the same run, printed as a table and written as JSON. */
import { writeFile } from 'node:fs/promises';
import { arch, cpus, loadavg, platform } from 'node:os';

/** One measured quantity with its unit and what it is. */
export interface Measure {
  value: number;
  unit: string;
  what: string;
}

/** A headline number compared with a limit from the same run: a ratio (vigil / limit) or a difference (vigil − limit). */
export interface Check {
  id: string;
  label: string;
  kind: 'ratio' | 'difference';
  vigil: Measure;
  limit: Measure;
  /** vigil / limit for a ratio, vigil − limit (in the measures' unit) for a difference. */
  value: number;
  /** The bound the value must meet; null for a ratio shown for information only. */
  target: { op: '<=' | '<'; value: number; unit: string } | null;
  /** Whether the target is met; null without a target. */
  pass: boolean | null;
}

/** A supporting number: shown under its benchmark, no target. */
export interface Detail {
  label: string;
  value: number;
  unit: string;
}

/** A check that the benchmark measured what it meant to (e.g. the runtime really beat N times). */
export interface Sanity {
  label: string;
  ok: boolean;
  detail: string;
}

/** Everything one benchmark reports. */
export interface BenchResult {
  id: string;
  title: string;
  checks: Check[];
  details: Detail[];
  sanity: Sanity[];
  notes: string[];
  durationMs: number;
}

/** What a benchmark returns; the runner adds how long it took. */
export type BenchOutcome = Omit<BenchResult, 'durationMs'>;

/** A ratio check: `vigil / limit` against `target` (a bound on the ratio). */
export function ratioCheck(
  id: string,
  label: string,
  vigil: Measure,
  limit: Measure,
  op: '<=' | '<',
  target: number,
): Check {
  const value = vigil.value / limit.value;
  return {
    id,
    label,
    kind: 'ratio',
    vigil,
    limit,
    value,
    target: { op, value: target, unit: '×' },
    pass: holds(value, op, target),
  };
}

/**
 * A ratio check over paired samples (`vigil[i]` measured right beside `limit[i]`): the value is the median of the
 * pairs' ratios, which drift of the machine between pairs does not move; the measures shown are the two medians.
 */
export function pairedRatioCheck(
  id: string,
  label: string,
  vigil: { values: readonly number[]; unit: string; what: string },
  limit: { values: readonly number[]; unit: string; what: string },
  op: '<=' | '<',
  target: number,
): Check {
  const info = pairedRatioInfo(id, label, vigil, limit);
  return { ...info, target: { op, value: target, unit: '×' }, pass: holds(info.value, op, target) };
}

/** A ratio over paired samples, as `pairedRatioCheck` takes it, shown beside the checks without a target. */
export function pairedRatioInfo(
  id: string,
  label: string,
  vigil: { values: readonly number[]; unit: string; what: string },
  limit: { values: readonly number[]; unit: string; what: string },
): Check {
  const middle = (values: readonly number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  return {
    id,
    label: `${label} (median of ${vigil.values.length} paired ratios)`,
    kind: 'ratio',
    vigil: { value: middle(vigil.values), unit: vigil.unit, what: vigil.what },
    limit: { value: middle(limit.values), unit: limit.unit, what: limit.what },
    value: middle(vigil.values.map((v, i) => v / limit.values[i]!)),
    target: null,
    pass: null,
  };
}

/** A ratio shown beside the checks without a target (no bound was set for it). */
export function ratioInfo(id: string, label: string, vigil: Measure, limit: Measure): Check {
  return { id, label, kind: 'ratio', vigil, limit, value: vigil.value / limit.value, target: null, pass: null };
}

/** A difference check: `vigil − limit` (same unit) against `target`. */
export function differenceCheck(
  id: string,
  label: string,
  vigil: Measure,
  limit: Measure,
  op: '<=' | '<',
  target: number,
): Check {
  const value = vigil.value - limit.value;
  return {
    id,
    label,
    kind: 'difference',
    vigil,
    limit,
    value,
    target: { op, value: target, unit: vigil.unit },
    pass: holds(value, op, target),
  };
}

/** A sanity check from a condition and a description of what was seen. */
export function sanity(label: string, ok: boolean, detail: string): Sanity {
  return { label, ok, detail };
}

function holds(value: number, op: '<=' | '<', target: number): boolean {
  return Number.isFinite(value) && (op === '<=' ? value <= target : value < target);
}

/** Formats a number with a sensible number of significant digits. */
export function fmt(value: number, unit = ''): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = Number.isInteger(value) || abs >= 1000 ? 0 : abs >= 100 ? 1 : abs >= 10 ? 2 : 3;
  const text = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit === '' ? text : `${text} ${unit}`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join(' │ ')
      .trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

function checkRow(check: Check): string[] {
  const result = check.kind === 'ratio' ? `${fmt(check.value)}×` : fmt(check.value, check.vigil.unit);
  const { target: bound } = check;
  const target =
    bound === null
      ? '(info)'
      : `${bound.op === '<=' ? '≤' : '<'} ${bound.value}${check.kind === 'ratio' ? '×' : ` ${bound.unit}`}`;
  return [
    check.label,
    `${fmt(check.vigil.value, check.vigil.unit)} (${check.vigil.what})`,
    `${fmt(check.limit.value, check.limit.unit)} (${check.limit.what})`,
    result,
    target,
    check.pass === null ? '' : check.pass ? 'PASS' : 'MISS',
  ];
}

/** The whole report as text: a summary table of every check, then each benchmark's details and sanity checks. */
export function renderReport(results: readonly BenchResult[], totalMs: number): string {
  const out: string[] = [];
  const env = environment();
  out.push(
    `Vigil bench — node ${env.node} ${env.platform}/${env.arch}, ${env.cpus} × ${env.cpuModel}, load average ${env.loadavg.join(' / ')}`,
  );
  out.push(
    'Every check compares Vigil with a limit measured in this run (the start-up targets are absolute); ratio = vigil / limit, difference = vigil − limit.',
  );
  out.push('');
  out.push(
    table(
      ['check', 'vigil', 'limit (same run)', 'result', 'target', 'verdict'],
      results.flatMap((r) => r.checks.map(checkRow)),
    ),
  );
  for (const result of results) {
    out.push('');
    out.push(`■ ${result.title}  (${fmt(result.durationMs / 1000, 's')})`);
    out.push(
      table(
        ['detail', 'value'],
        result.details.map((d) => [d.label, fmt(d.value, d.unit)]),
      ),
    );
    for (const s of result.sanity) out.push(`  ${s.ok ? 'ok  ' : 'FAIL'} ${s.label}: ${s.detail}`);
    for (const note of result.notes) out.push(`  note: ${note}`);
  }
  const summary = summarise(results);
  out.push('');
  out.push(
    `${summary.pass} PASS, ${summary.miss} MISS, ` +
      `${summary.sanityFailures} sanity failure(s); whole bench ${fmt(totalMs / 1000, 's')}.`,
  );
  return out.join('\n');
}

/** Counts of met and missed targets and of failed sanity checks. */
export function summarise(results: readonly BenchResult[]): { pass: number; miss: number; sanityFailures: number } {
  const checks = results.flatMap((r) => r.checks);
  return {
    pass: checks.filter((c) => c.pass === true).length,
    miss: checks.filter((c) => c.pass === false).length,
    sanityFailures: results.flatMap((r) => r.sanity).filter((s) => !s.ok).length,
  };
}

/** Where the bench ran. */
export function environment(): {
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  cpuModel: string;
  loadavg: number[];
} {
  const info = cpus();
  return {
    node: process.version,
    platform: platform(),
    arch: arch(),
    cpus: info.length,
    cpuModel: info[0]?.model.trim() ?? 'unknown',
    // Other work on the machine moves every number here, the real-time ones most.
    loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** Writes the same numbers as JSON to `file`. */
export async function writeJsonReport(file: URL, results: readonly BenchResult[], totalMs: number): Promise<void> {
  const json = {
    generatedAt: new Date().toISOString(),
    environment: environment(),
    totalMs,
    summary: summarise(results),
    benchmarks: results,
  };
  await writeFile(file, `${JSON.stringify(json, null, 2)}\n`, 'utf8');
}
