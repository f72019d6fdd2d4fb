/** docs/reference/error-codes.md's tables: every Vigil error code with its JSON-RPC code, and the codes a turn may end with. */
import { fileURLToPath } from 'node:url';
import { TurnEndingCodeSchema } from '../../src/protocol/conversation.schema.js';
import { ERROR_CODES, JSON_RPC_CODE_BY_ERROR } from '../../src/protocol/error-codes.js';
import { entryDocComments } from './doc-comments.js';
import { code, table } from './markdown.js';

const source = (path: string) => fileURLToPath(new URL(`../../src/protocol/${path}`, import.meta.url));

/** Every `VigilError` code, in the table's order, with the JSON-RPC code it becomes on the wire. */
export function renderErrorCodes(): string {
  const meanings = entryDocComments(source('error-codes.ts'), 'ERROR_CODES');
  const rows = Object.values(ERROR_CODES).map((name) => [
    code(name),
    code(String(JSON_RPC_CODE_BY_ERROR[name] ?? -32603)),
    meanings.get(name) ?? '',
  ]);
  return table(['code', 'JSON-RPC', 'meaning'], rows);
}

/** The codes of `agent.unanswered` and of an unanswered conversation entry. */
export function renderTurnEndingCodes(): string {
  const meanings = entryDocComments(source('conversation.schema.ts'), 'TurnEndingCodeSchema');
  return table(
    ['code', 'meaning'],
    TurnEndingCodeSchema.options.map((name) => [code(name), meanings.get(name) ?? '']),
  );
}
