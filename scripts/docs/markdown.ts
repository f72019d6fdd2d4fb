/** Small Markdown writers shared by the generated reference pages: code spans, table cells and tables. */

/** `text` as a code span, with a longer fence when the text holds a backtick. */
export function code(text: string): string {
  if (!text.includes('`')) return `\`${text}\``;
  return `\`\` ${text} \`\``;
}

/** Text made safe for one cell of a GitHub table: on one line, its pipes escaped (inside code spans too, as GFM wants). */
export function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/** A GitHub table with `header` and `rows`, every cell passed through `cell`. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
