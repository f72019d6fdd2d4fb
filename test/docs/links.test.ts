/**
 * Every link in every Markdown file of the repository leads somewhere: a relative link to a file that exists inside
 * the repository (never out of it, as a `../shared/…` link would, broken on any forge and on npm), an anchor to a
 * heading of its target, an external link to a public http(s) URL. And the README stays a front door: 12 KB at most.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GithubSlugger, slugOf } from '../../scripts/docs/github-slug.js';
import { anchorsOf, linksOf } from '../../scripts/docs/markdown-links.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// Not part of the repository as a reader gets it: installed, built or left by a run.
const NOT_IN_REPO = new Set(['node_modules', 'dist', '.git', 'data', 'coverage', 'test-artifacts', '_scratch']);
const README_MAX_BYTES = 12 * 1024;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (NOT_IN_REPO.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const anchorCache = new Map<string, Set<string>>();
function anchorsIn(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (anchors === undefined) {
    anchors = anchorsOf(readFileSync(file, 'utf8'));
    anchorCache.set(file, anchors);
  }
  return anchors;
}

/** What is wrong with `target` as a link from `file`; undefined when it leads somewhere. */
export function linkProblem(file: string, target: string): string | undefined {
  if (/^https?:\/\/[^/]/i.test(target) || /^mailto:/i.test(target)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return 'not a public http(s) URL';
  if (target.startsWith('/')) return 'an absolute path (it breaks outside the forge): link relatively';
  const hash = target.indexOf('#');
  const path = decodeURI(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = path === '' ? file : resolve(dirname(file), path);
  const inRepo = relative(ROOT, resolved);
  if (inRepo.startsWith('..') || resolve(ROOT, inRepo) !== resolved) return 'points outside the repository';
  if (inRepo.split(sep).some((part) => NOT_IN_REPO.has(part)))
    return 'points into a directory that is not in the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (statSync(resolved).isDirectory()) return 'an anchor on a directory';
  if (!resolved.endsWith('.md'))
    return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : 'an anchor into a file that is not Markdown';
  return anchorsIn(resolved).has(anchor) ? undefined : `no heading with the anchor #${anchor}`;
}

const files = markdownFiles(ROOT);

describe('links in the Markdown files', () => {
  it('finds the README, the docs and the project files', () => {
    const names = files.map((f) => relative(ROOT, f));
    for (const name of [
      'README.md',
      'CHANGELOG.md',
      'CONTRIBUTING.md',
      'docs/architecture.md',
      'docs/configuration.md',
    ]) {
      expect(names).toContain(name);
    }
  });

  it.each(files.map((f) => [relative(ROOT, f), f] as const))(
    '%s: every relative link and anchor resolves',
    (_name, file) => {
      const broken = linksOf(readFileSync(file, 'utf8'))
        .map((link) => ({ ...link, problem: linkProblem(file, link.target) }))
        .filter((link) => link.problem !== undefined)
        .map((link) => `line ${link.line}: ${link.target} (${link.problem})`);
      expect(broken).toEqual([]);
    },
  );

  it('stands alone: no page sends the reader to a document outside the repository by name', () => {
    const naming = files
      .filter((file) => /CONTRACT(\.md| §)/.test(readFileSync(file, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(naming).toEqual([]);
  });

  it('keeps the README within 12 KB', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });
});

describe('the link checker', () => {
  it('makes the anchors GitHub makes', () => {
    expect(slugOf('Tools (MCP)')).toBe('tools-mcp');
    expect(slugOf('`agent.send`')).toBe('agentsend');
    expect(slugOf('`VIGIL_MCP_CONFIG` and the budget — §7')).toBe('vigil_mcp_config-and-the-budget--7');
    expect(slugOf("The agent's identity")).toBe('the-agents-identity');
    const slugger = new GithubSlugger();
    expect(['What proves it', 'What proves it', 'What proves it'].map((t) => slugger.slug(t))).toEqual([
      'what-proves-it',
      'what-proves-it-1',
      'what-proves-it-2',
    ]);
  });

  it('reads links outside code only, and anchors from headings', () => {
    const text = [
      '# Title',
      'See [a](a.md#x) and ![pic](p.png "t") and `[not](code.md)`.',
      '',
      '    [indented](code.md)',
      '',
      '```',
      '[fenced](code.md)',
      '## not a heading',
      '```',
      '[ref]: <b.md>',
      '## `x.y` again',
    ].join('\n');
    expect(linksOf(text).map((l) => l.target)).toEqual(['a.md#x', 'p.png', 'b.md']);
    expect([...anchorsOf(text)]).toEqual(['title', 'xy-again']);
  });

  it('refuses links that leave the repository, miss their file or their anchor', () => {
    const readme = join(ROOT, 'README.md');
    expect(linkProblem(readme, '../shared/CONTRACT.md')).toBe('points outside the repository');
    expect(linkProblem(readme, 'docs/no-such-page.md')).toBe('no such file');
    expect(linkProblem(readme, 'docs/architecture.md#no-such-heading')).toBe(
      'no heading with the anchor #no-such-heading',
    );
    expect(linkProblem(readme, 'docs/architecture.md#the-floors-from-the-ground-up')).toBeUndefined();
    expect(linkProblem(readme, 'file:///etc/passwd')).toBe('not a public http(s) URL');
    expect(linkProblem(readme, 'https://modelcontextprotocol.io')).toBeUndefined();
  });
});
