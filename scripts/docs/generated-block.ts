/**
 * Generated blocks inside hand-written pages: prose stays Markdown anyone may edit, and the part that must not drift
 * from the code (a table of every variable, method, event, metric or error code) sits between two markers and is
 * rewritten from the code by `node --import tsx scripts/docs.ts --write`. test/docs/generated.test.ts fails when a
 * block differs from what the code renders today.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One generated block: the page it lives in (relative to the repository root), its name, and how it is rendered. */
export interface GeneratedBlock {
  readonly page: string;
  readonly name: string;
  readonly render: () => string;
}

const begin = (name: string) =>
  `<!-- generated:begin ${name} (by \`node --import tsx scripts/docs.ts --write\` from the code; do not edit by hand) -->`;
const end = (name: string) => `<!-- generated:end ${name} -->`;

/** The block as it should stand in its page: the markers around what the code renders today. */
export function expectedBlock(block: GeneratedBlock): string {
  return `${begin(block.name)}\n${block.render().trimEnd()}\n${end(block.name)}`;
}

/** The block as the page holds it now, markers included; null when the page has no such block. */
export function documentedBlock(root: string, block: GeneratedBlock): string | null {
  const text = readFileSync(join(root, block.page), 'utf8');
  // Any begin marker naming the block counts (a page may start with a bare `<!-- generated:begin NAME -->`).
  const start = new RegExp(`<!-- generated:begin ${block.name}[ -][^\\n]*?-->`).exec(text)?.index ?? -1;
  const stop = text.indexOf(end(block.name));
  return start === -1 || stop === -1 || stop < start ? null : text.slice(start, stop + end(block.name).length);
}

/** Rewrites the block in its page; true when the page changed. */
export function writeBlock(root: string, block: GeneratedBlock): boolean {
  const current = documentedBlock(root, block);
  if (current === null)
    throw new Error(`${block.page} has no generated block "${block.name}" (add the two markers first)`);
  const expected = expectedBlock(block);
  if (current === expected) return false;
  const path = join(root, block.page);
  writeFileSync(
    path,
    readFileSync(path, 'utf8').replace(current, () => expected),
  );
  return true;
}
