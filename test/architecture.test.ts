import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentedBlock, floorOf, pictureBlock, readImports, violations } from '../scripts/architecture.js';

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
});
