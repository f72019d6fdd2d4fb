/**
 * Example: a small stdio MCP server to give the agent tools (`node --import tsx examples/mcp-notes-server.ts`), built
 * with the SDK's `McpServer`. It keeps notes in a JSON-lines file (NOTES_FILE, default ./notes.jsonl):
 *
 * - `add_note {text}` appends a note: a side effect, so leave it out of `idempotentTools` (and put it under
 *   `requireApproval` to have an operator approve each one);
 * - `list_notes {contains?}` and `word_count {text}` only read: safe to list in `idempotentTools`.
 *
 * A VIGIL_MCP_CONFIG for it:
 *   {"mcpServers": {"notes": {"command": "node", "args": ["--import", "tsx", "examples/mcp-notes-server.ts"],
 *     "cwd": "/path/to/vigil", "env": {"NOTES_FILE": "/tmp/notes.jsonl"},
 *     "requireApproval": ["add_note"], "idempotentTools": ["list_notes", "word_count"]}}}
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const NOTES_FILE = process.env['NOTES_FILE'] ?? 'notes.jsonl';

interface Note {
  text: string;
  at: string;
}

function readNotes(): Note[] {
  if (!existsSync(NOTES_FILE)) return [];
  return readFileSync(NOTES_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Note);
}

const server = new McpServer({ name: 'notes', version: '1.0.0' });

server.registerTool(
  'add_note',
  {
    description: 'Append a note to the notes file.',
    inputSchema: { text: z.string().min(1).describe('The note, one line.') },
  },
  ({ text }) => {
    const note: Note = { text, at: new Date().toISOString() };
    appendFileSync(NOTES_FILE, `${JSON.stringify(note)}\n`);
    return { content: [{ type: 'text', text: `Noted (${readNotes().length} notes in all).` }] };
  },
);

server.registerTool(
  'list_notes',
  {
    description: 'List the notes, oldest first, optionally only those containing some text.',
    inputSchema: { contains: z.string().optional().describe('Only notes containing this text (any case).') },
  },
  ({ contains }) => {
    const wanted = contains?.toLowerCase();
    const notes = readNotes().filter((note) => wanted === undefined || note.text.toLowerCase().includes(wanted));
    const text = notes.length === 0 ? 'No notes.' : notes.map((note) => `- ${note.at} ${note.text}`).join('\n');
    return { content: [{ type: 'text', text }] };
  },
);

server.registerTool(
  'word_count',
  { description: 'Count the words of a text.', inputSchema: { text: z.string() } },
  ({ text }) => ({ content: [{ type: 'text', text: String(text.split(/\s+/).filter((word) => word !== '').length) }] }),
);

await server.connect(new StdioServerTransport());
