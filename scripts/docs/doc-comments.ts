/**
 * The `/** … *\/` comments written above the entries of a table in a source file (an object literal's properties or an
 * array literal's strings), read with the TypeScript parser: the comments are the one place those entries are
 * described, so the reference pages quote them rather than repeat them.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** The text of the doc comment right above `node`, its leading `*`s and line breaks folded; undefined when none. */
function docCommentOf(sourceText: string, node: ts.Node): string | undefined {
  const ranges = ts.getLeadingCommentRanges(sourceText, node.getFullStart()) ?? [];
  const docs = ranges.map((r) => sourceText.slice(r.pos, r.end)).filter((text) => text.startsWith('/**'));
  const last = docs.at(-1);
  if (last === undefined) return undefined;
  return last
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter((line) => line !== '')
    .join(' ');
}

function keyOf(node: ts.Node): string | undefined {
  if (ts.isPropertyAssignment(node)) {
    const name = node.name;
    if (ts.isIdentifier(name) || ts.isStringLiteral(name)) return name.text;
  }
  if (ts.isStringLiteral(node)) return node.text;
  return undefined;
}

/** The literal a `const NAME = …` declaration holds, looking through calls (`z.enum([…])`) and `as const`. */
function literalOf(node: ts.Node | undefined): ts.ObjectLiteralExpression | ts.ArrayLiteralExpression | undefined {
  if (node === undefined) return undefined;
  if (ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node)) return node;
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node))
    return literalOf(node.expression);
  if (ts.isCallExpression(node)) return literalOf(node.arguments[0]);
  return undefined;
}

/** The doc comment of every entry of the table `constName` declared in `file`, by the entry's key. */
export function entryDocComments(file: string, constName: string): Map<string, string> {
  const sourceText = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, sourceText, ts.ScriptTarget.Latest, true);
  let literal: ts.ObjectLiteralExpression | ts.ArrayLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === constName)
      literal = literalOf(node.initializer);
    else ts.forEachChild(node, visit);
  };
  visit(source);
  if (literal === undefined) throw new Error(`${file} declares no table named ${constName}`);
  const entries = ts.isObjectLiteralExpression(literal) ? literal.properties : literal.elements;
  const comments = new Map<string, string>();
  for (const entry of entries) {
    const key = keyOf(entry);
    const comment = docCommentOf(sourceText, entry);
    if (key !== undefined && comment !== undefined) comments.set(key, comment);
  }
  return comments;
}
