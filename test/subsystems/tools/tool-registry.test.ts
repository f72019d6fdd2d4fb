import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../src/subsystems/tools/backoff.js';
import { mcpToolName } from '../../../src/subsystems/tools/tool-naming.js';
import { mergeRegistry, serverTools, unknownAllowedTools } from '../../../src/subsystems/tools/tool-registry.js';

const tool = (name: string, description?: string): Tool => ({
  name,
  inputSchema: { type: 'object' },
  ...(description === undefined ? {} : { description }),
});

describe('mcpToolName', () => {
  it('names a tool mcp__SERVER__TOOL, replacing what the model API refuses', () => {
    expect(mcpToolName('fs', 'read_file')).toBe('mcp__fs__read_file');
    expect(mcpToolName('fs', 'files.read/all')).toBe('mcp__fs__files_read_all');
  });

  it('refuses a name longer than 64 characters', () => {
    expect(mcpToolName('server', 'x'.repeat(64 - 'mcp__server__'.length))).toHaveLength(64);
    expect(mcpToolName('server', 'x'.repeat(65 - 'mcp__server__'.length))).toBeUndefined();
  });
});

describe('serverTools', () => {
  it('resolves approval, idempotence and timeout from the entry, sorted by name', () => {
    const { tools, skipped } = serverTools(
      'fs',
      { command: 'x', requireApproval: ['write'], idempotentTools: ['read'], timeoutMs: 10 },
      [tool('write', 'Writes.'), tool('read')],
      true,
    );
    expect(skipped).toEqual([]);
    expect(tools).toEqual([
      {
        name: 'mcp__fs__read',
        server: 'fs',
        tool: 'read',
        description: '',
        inputSchema: { type: 'object' },
        requireApproval: false,
        idempotent: true,
        timeoutMs: 10,
        available: true,
      },
      {
        name: 'mcp__fs__write',
        server: 'fs',
        tool: 'write',
        description: 'Writes.',
        inputSchema: { type: 'object' },
        requireApproval: true,
        idempotent: false,
        timeoutMs: 10,
        available: true,
      },
    ]);
    expect(serverTools('fs', { command: 'x', requireApproval: true }, [tool('read')], false).tools[0]).toMatchObject({
      requireApproval: true,
      timeoutMs: 60_000,
      available: false,
    });
  });

  it('keeps only allowedTools and reports the names it does not find', () => {
    const entry = { command: 'x', allowedTools: ['read', 'reed'] };
    const listing = [tool('read'), tool('write')];
    expect(serverTools('fs', entry, listing, true).tools.map((t) => t.name)).toEqual(['mcp__fs__read']);
    expect(unknownAllowedTools(entry, listing)).toEqual(['reed']);
  });

  it('skips a tool whose name is too long or collides with another after replacing characters, whatever the listing order', () => {
    for (const listing of [
      [tool('a.b'), tool('a_b'), tool('y'.repeat(80))],
      [tool('y'.repeat(80)), tool('a_b'), tool('a.b')],
    ]) {
      const { tools, skipped } = serverTools('fs', { command: 'x' }, listing, true);
      expect(tools.map((t) => [t.name, t.tool])).toEqual([['mcp__fs__a_b', 'a.b']]);
      expect(skipped.map((s) => s.tool)).toEqual(['a_b', 'y'.repeat(80)]);
    }
  });
});

describe('mergeRegistry', () => {
  it('orders every server’s tools by name in code-unit order, the same wherever it runs', () => {
    const a = serverTools('b-server', { command: 'x' }, [tool('Zed'), tool('alpha')], true).tools;
    const b = serverTools('a_server', { command: 'x' }, [tool('beta')], true).tools;
    expect(mergeRegistry([a, b]).map((t) => t.name)).toEqual([
      'mcp__a_server__beta',
      'mcp__b-server__Zed',
      'mcp__b-server__alpha',
    ]);
  });
});

describe('backoffDelay', () => {
  it('doubles from the base up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 100].map((n) => backoffDelay(n))).toEqual([
      1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000,
    ]);
    expect(backoffDelay(3, { baseMs: 10, maxMs: 25 })).toBe(25);
  });
});
