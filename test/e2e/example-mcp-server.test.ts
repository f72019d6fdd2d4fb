/**
 * The offline walk-through of docs/guides/tools-and-approvals.md, with `examples/mcp-notes-server.ts` under
 * `vigil run`: read, approve a write, read it back.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { ROOT } from '../subsystems/tools/mcp-hub.fixture.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-example-mcp-'));
const started: DaemonProcess[] = [];
afterEach(async () => {
  for (const daemon of started.splice(0)) {
    daemon.kill('SIGTERM');
    await daemon.exited;
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'example-mcp-token-0123456789';

/** Sends `text` and resolves with the text of the reply to its turn (polling the journal: another process). */
async function ask(client: VigilClient, text: string): Promise<string> {
  const { turnId } = await client.agent.send({ text, from: 'e2e' });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [reply] = (await client.events.history({ types: ['agent.reply'], limit: 100 })).filter(
      (e) => (e as { turnId?: string }).turnId === turnId,
    );
    if (reply !== undefined) return (reply as { text: string }).text;
    if (Date.now() > deadline) throw new Error(`no reply to ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("examples/mcp-notes-server.ts as the agent's tools", () => {
  it('lists, adds a note once an operator approves it, and lists it back; the reads are idempotent, the write is not', async () => {
    const notesFile = join(dir, 'notes.jsonl');
    const config = join(dir, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          notes: {
            command: process.execPath,
            args: ['--import', 'tsx', 'examples/mcp-notes-server.ts'],
            cwd: ROOT,
            env: { NOTES_FILE: notesFile },
            requireApproval: ['add_note'],
            idempotentTools: ['list_notes', 'word_count'],
          },
        },
      }),
    );
    const daemon = startDaemon(['run', '--data-dir', join(dir, 'data'), '--port', '0'], {
      VIGIL_MCP_CONFIG: config,
      VIGIL_TOKEN: TOKEN,
      VIGIL_LOG_LEVEL: 'info',
    });
    started.push(daemon);
    const url = String((await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening')).url);
    await daemon.waitFor((l) => l.msg === 'mcp.server_up', 20_000, 'mcp.server_up');
    const client = await connect({ url, token: TOKEN, reconnect: false });
    try {
      expect(
        (await client.tools.list()).flatMap((t) => ('name' in t ? [[t.name, t.requireApproval, t.idempotent]] : [])),
      ).toEqual([
        ['mcp__notes__add_note', true, false],
        ['mcp__notes__list_notes', false, true],
        ['mcp__notes__word_count', false, true],
      ]);
      expect(await ask(client, '/tool notes__list_notes')).toBe('mcp__notes__list_notes returned:\nNo notes.');
      expect(await ask(client, '/tool notes__word_count {"text": "three small words"}')).toBe(
        'mcp__notes__word_count returned:\n3',
      );

      const { turnId } = await client.agent.send({
        text: '/tool notes__add_note {"text": "Buy oat milk"}',
        from: 'e2e',
      });
      let pending = await client.tools.pending();
      for (
        const deadline = Date.now() + 15_000;
        pending.length === 0 && Date.now() < deadline;
        pending = await client.tools.pending()
      ) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(pending).toMatchObject([{ name: 'mcp__notes__add_note', turnId, args: { text: 'Buy oat milk' } }]);
      await client.tools.approve({ callId: pending[0]!.callId });
      expect(await ask(client, '/tool notes__list_notes {"contains": "oat"}')).toMatch(
        /^mcp__notes__list_notes returned:\n- \S+ Buy oat milk$/,
      );
      expect(readFileSync(notesFile, 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
