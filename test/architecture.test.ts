import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  documentedBlock,
  floorOf,
  GENERATED_FILES,
  importCircles,
  lineCount,
  MAX_FILE_LINES,
  overlongFiles,
  pictureBlock,
  readImports,
  readLineCounts,
  relativeImportsOf,
  violations,
} from '../scripts/architecture.js';

const edges = readImports();

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe('architecture (docs/architecture.md)', () => {
  it('breaks no floor rule: no import runs upward and no two floors import each other', () => {
    expect(violations(edges).map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('keeps the protocol and the bus at the bottom: protocol imports only actors, events only protocol and shared', () => {
    const below = (floor: string, allowed: string[]) =>
      edges.filter((e) => floorOf(e.from) === floor && floorOf(e.to) !== floor && !allowed.includes(floorOf(e.to)));
    expect(below('protocol', ['actors'])).toEqual([]);
    expect(below('events', ['protocol', 'shared'])).toEqual([]);
    expect(below('client', ['protocol', 'shared'])).toEqual([]);
  });

  it('draws in the document the picture the code has today', () => {
    expect(documentedBlock()).toBe(pictureBlock(edges));
  });

  it('keeps every runtime file under 300 lines and hands out no store through an escape hatch', () => {
    const long = filesUnder('src/runtime')
      .map((file) => [file, readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 300);
    expect(long).toEqual([]);
    const hatches = filesUnder('src').filter((file) => /\bservices\b/.test(readFileSync(file, 'utf8')));
    expect(hatches).toEqual([]);
  });

  it('has no import circle between files of src, type imports included', () => {
    expect(importCircles(edges)).toEqual([]);
  });

  it(`keeps every source file at ${MAX_FILE_LINES} lines or fewer (generated files excepted by name)`, () => {
    const lines = readLineCounts();
    expect(overlongFiles(lines)).toEqual([]);
    // The exceptions are real files: a stale name would hide the next file given it.
    expect(GENERATED_FILES.filter((file) => !lines.has(file))).toEqual([]);
  });

  describe('the checks themselves, on planted input', () => {
    it('finds a circle of two files, a longer one, and a file importing itself, type imports counted like any', () => {
      const planted = [
        { from: 'runtime/a.ts', to: 'runtime/b.ts' },
        { from: 'runtime/b.ts', to: 'runtime/a.ts' },
        { from: 'shared/x.ts', to: 'shared/y.ts' },
        { from: 'shared/y.ts', to: 'shared/z.ts' },
        { from: 'shared/z.ts', to: 'shared/x.ts' },
        { from: 'shared/z.ts', to: 'shared/leaf.ts' },
        { from: 'events/self.ts', to: 'events/self.ts' },
      ];
      expect(importCircles(planted)).toEqual([
        ['events/self.ts'],
        ['runtime/a.ts', 'runtime/b.ts'],
        ['shared/x.ts', 'shared/y.ts', 'shared/z.ts'],
      ]);
      // The same files without the edge back: a chain, not a circle.
      expect(importCircles(planted.filter((e) => e.to !== 'runtime/a.ts' && e.from !== 'shared/z.ts'))).toEqual([
        ['events/self.ts'],
      ]);
    });

    it('reads type imports, type re-exports and import() as imports', () => {
      const text = [
        "import type { Clock } from './clock.js';",
        "export type { Clock } from './clock.types.js';",
        'import {',
        '  a,',
        "} from '../b.js';",
        "type Loaded = typeof import('./lazy.js');",
        "import { z } from 'zod';",
      ].join('\n');
      expect(relativeImportsOf(text)).toEqual(['./clock.js', './clock.types.js', '../b.js', './lazy.js']);
    });

    it('finds the circle the code had (runtime-core and embedding-budget) in edges read from files', () => {
      const withCircle = [...edges, { from: 'runtime/embedding-budget.ts', to: 'runtime/runtime-core.ts' }];
      expect(importCircles(withCircle)).toContainEqual(['runtime/embedding-budget.ts', 'runtime/runtime-core.ts']);
    });

    it('flags a 351-line file and not a 350-line one, unless it is named as generated', () => {
      const text = (n: number) => 'x\n'.repeat(n);
      expect(lineCount(text(351))).toBe(351);
      expect(lineCount(`${text(350)}x`)).toBe(351);
      const lines = new Map([
        ['subsystems/long.ts', lineCount(text(351))],
        ['subsystems/fits.ts', lineCount(text(350))],
        ['protocol/made.ts', 900],
      ]);
      expect(overlongFiles(lines, 350, ['protocol/made.ts'])).toEqual([{ file: 'subsystems/long.ts', lines: 351 }]);
      expect(overlongFiles(lines, 350, [])).toEqual([
        { file: 'protocol/made.ts', lines: 900 },
        { file: 'subsystems/long.ts', lines: 351 },
      ]);
    });
  });
});
