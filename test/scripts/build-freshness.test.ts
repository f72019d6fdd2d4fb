/** `npm start` builds only after a change (scripts/build-freshness.mjs, `build.mjs --if-changed`), on a temp tree. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

interface BuildFreshness {
  BUILD_INPUTS: readonly string[];
  BUILD_OUTPUTS: readonly string[];
  buildDue: (
    root: string,
    lists?: { inputs?: readonly string[]; outputs?: readonly string[] },
  ) => { due: boolean; reason: string };
  startBuild: (root: string) => number;
  recordBuild: (root: string, startedAt: number) => void;
}
// Imported by URL: a plain script of the build, not part of the TypeScript project.
const moduleUrl = new URL('../../scripts/build-freshness.mjs', import.meta.url).href;
const { BUILD_INPUTS, BUILD_OUTPUTS, buildDue, recordBuild, startBuild } = (await import(moduleUrl)) as BuildFreshness;

const LISTS = { inputs: ['src', 'package.json'], outputs: ['dist/cli.js'] };
let root: string;
/** A minute before now: the tree's files as a checkout left them, long before any build. */
let before: number;

/** Sets `path`'s (under root) modification time, in epoch ms. */
const touch = (path: string, atMs: number) => utimesSync(join(root, path), atMs / 1000, atMs / 1000);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'vigil-build-fresh-'));
  mkdirSync(join(root, 'src/gateway/dashboard'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  for (const file of ['src/cli.ts', 'src/gateway/dashboard/tools.panel.js', 'package.json', 'dist/cli.js'])
    writeFileSync(join(root, file), 'x');
  before = Date.now() - 60_000;
  for (const path of ['src/cli.ts', 'src/gateway/dashboard/tools.panel.js', 'package.json']) touch(path, before);
  // Directories last: writing their files changed their times.
  for (const dir of ['src/gateway/dashboard', 'src/gateway', 'src']) touch(dir, before);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A successful build of the tree as it is now. */
function build(): void {
  recordBuild(root, startBuild(root));
}

describe('the build check of npm start', () => {
  it('builds when no build was recorded, and not again until an input changes', () => {
    expect(buildDue(root, LISTS)).toEqual({ due: true, reason: 'no build recorded' });
    build();
    expect(buildDue(root, LISTS)).toEqual({ due: false, reason: 'nothing changed since the last build' });
    expect(buildDue(root, LISTS)).toEqual({ due: false, reason: 'nothing changed since the last build' });
  });

  it('builds after a source, a dashboard file or the manifest is saved', () => {
    const startedAt = startBuild(root);
    recordBuild(root, startedAt);
    for (const path of ['src/cli.ts', 'src/gateway/dashboard/tools.panel.js', 'package.json']) {
      touch(path, startedAt + 1);
      expect(buildDue(root, LISTS)).toEqual({ due: true, reason: `${path} changed since the last build` });
      // Saved in the same tick as the build started: it may not be in it.
      touch(path, startedAt);
      expect(buildDue(root, LISTS).due).toBe(true);
      touch(path, before);
      expect(buildDue(root, LISTS).due).toBe(false);
    }
  });

  it('builds after a file is added or removed, whatever the times of the files left', () => {
    build();
    // Copied in with its old time kept (cp -p, an unpacked archive): the directory's time says it is new.
    writeFileSync(join(root, 'src/gateway/added.ts'), 'x');
    touch('src/gateway/added.ts', before);
    expect(buildDue(root, LISTS)).toEqual({ due: true, reason: 'src/gateway changed since the last build' });
    build();
    rmSync(join(root, 'src/cli.ts'));
    expect(buildDue(root, LISTS)).toEqual({ due: true, reason: 'src changed since the last build' });
  });

  it('builds when an output is missing, and after a build that started but was not recorded (failed, interrupted)', () => {
    build();
    rmSync(join(root, 'dist/cli.js'));
    expect(buildDue(root, LISTS)).toEqual({ due: true, reason: 'dist/cli.js is missing' });
    writeFileSync(join(root, 'dist/cli.js'), 'x');
    startBuild(root);
    expect(buildDue(root, LISTS)).toEqual({ due: true, reason: 'no build recorded' });
  });

  it('watches every input of the real build and the files it leaves', () => {
    expect(BUILD_INPUTS).toEqual(
      expect.arrayContaining(['src', 'package.json', 'package-lock.json', 'scripts/build.mjs', 'tsconfig.build.json']),
    );
    expect(BUILD_OUTPUTS).toEqual(expect.arrayContaining(['dist/bundle/cli.js', 'dist/gateway/dashboard/index.html']));
  });
});
