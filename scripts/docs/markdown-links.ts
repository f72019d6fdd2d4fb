/**
 * What a Markdown file links to and which anchors it offers, read the way GitHub renders it closely enough to check
 * links: code (fenced blocks, indented blocks, code spans) is skipped, inline links, images and reference definitions
 * are read, and every ATX heading (plus any `<a id>` / `<a name>`) is an anchor.
 */
import { GithubSlugger } from './github-slug.js';

/** One link found in a document: its target as written and the line it is on. */
export interface MarkdownLink {
  readonly target: string;
  readonly line: number;
}

/** The document's lines with code blanked out (kept as empty strings so line numbers stay true). */
export function proseLines(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  let fence: string | undefined;
  let previousBlankOrCode = true;
  for (const line of lines) {
    if (fence !== undefined) {
      if (new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`).test(line)) fence = undefined;
      out.push('');
      continue;
    }
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (opening !== null) {
      fence = opening[1];
      out.push('');
      continue;
    }
    // An indented code block starts after a blank line (list items here indent their continuation by two spaces).
    const indentedCode: boolean = /^( {4}|\t)/.test(line) && previousBlankOrCode;
    previousBlankOrCode = line.trim() === '' || indentedCode;
    out.push(indentedCode ? '' : line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, ''));
  }
  return out;
}

/** A heading's text as GitHub shows it: links and images by their text, tags dropped, code spans by their content. */
function headingText(raw: string): string {
  return raw
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim();
}

/** Every anchor the document offers: its headings' slugs (numbered as GitHub numbers repeats) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  // Headings are read with code spans intact (their text counts), so fenced and indented code is blanked line by line.
  const prose = proseLines(text);
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (prose[i] === '' && line.trim() !== '') return;
    const heading = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (heading !== null) anchors.add(slugger.slug(headingText(heading[1] ?? '')));
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  });
  return anchors;
}

/** Every link target of the document: inline links and images (`[t](x)`, `![a](x)`) and reference definitions. */
export function linksOf(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  proseLines(text).forEach((line, i) => {
    for (const match of line.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: match[1]!.replace(/^<(.*)>$/, '$1'), line: i + 1 });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (definition !== null) links.push({ target: definition[1]!.replace(/^<(.*)>$/, '$1'), line: i + 1 });
  });
  return links;
}
