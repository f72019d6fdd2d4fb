import { describe, expect, it } from 'vitest';
import {
  McpConfigFileSchema,
  isMcpServerName,
  isStdioServer,
  type McpServerEntry,
} from '../../src/protocol/mcp-config.schema.js';

const issues = (value: unknown) => {
  const parsed = McpConfigFileSchema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('McpConfigFileSchema', () => {
  it.each(['fs', 'web-search', 'a_b', 'A1', 'x-_-y', '9'])('accepts the server name %j', (name) => {
    expect(isMcpServerName(name)).toBe(true);
    expect(issues({ mcpServers: { [name]: { command: 'x' } } })).toEqual([]);
  });

  it.each(['', 'a__b', '_a', 'a_', 'my.fs', 'a b', 'ü', 'x'.repeat(33)])(
    'refuses the server name %j, naming it',
    (name) => {
      expect(isMcpServerName(name)).toBe(false);
      expect(issues({ mcpServers: { [name]: { command: 'x' } } })).toEqual([
        `mcpServers.${name}: expected a server name of 1 to 32 letters, digits, "-" or single "_" between them (it becomes part of mcp__SERVER__TOOL)`,
      ]);
    },
  );

  it('tells the two kinds of entry apart by command or url, with the type field other clients write', () => {
    const parsed = McpConfigFileSchema.parse({
      mcpServers: {
        a: { type: 'stdio', command: 'node', args: ['s.js'] },
        b: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
        c: { type: 'streamable-http', url: 'https://x/mcp' },
      },
    });
    const entries = parsed.mcpServers as Record<string, McpServerEntry>;
    expect([isStdioServer(entries['a']!), isStdioServer(entries['b']!), isStdioServer(entries['c']!)]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('refuses the old SSE transport and a type that does not match the entry', () => {
    expect(issues({ mcpServers: { a: { type: 'sse', url: 'http://x/sse' } } })).toEqual([
      'mcpServers.a.type: expected "http" for a server with a url (only Streamable HTTP is supported)',
    ]);
    expect(issues({ mcpServers: { a: { type: 'http', command: 'x' } } })).toEqual([
      'mcpServers.a.type: expected "stdio" for a server with a command',
    ]);
  });

  it('takes requireApproval as true or a list of tool names, nothing else', () => {
    expect(issues({ mcpServers: { a: { command: 'x', requireApproval: true } } })).toEqual([]);
    expect(issues({ mcpServers: { a: { command: 'x', requireApproval: ['rm'] } } })).toEqual([]);
    expect(issues({ mcpServers: { a: { command: 'x', requireApproval: 'rm' } } })).toEqual([
      'mcpServers.a.requireApproval: expected true or a list of tool names',
    ]);
  });

  it('names every field that is wrong, with the server it belongs to', () => {
    expect(
      issues({ mcpServers: { a: { command: '', env: { A: 1 } }, b: { url: 'ftp://x', headers: [], timeoutMs: 1.5 } } }),
    ).toEqual([
      'mcpServers.a.command: expected a non-empty command',
      'mcpServers.a.env.A: expected every env value to be a string',
      'mcpServers.b.url: expected an http(s) URL of a Streamable HTTP endpoint',
      'mcpServers.b.headers: expected headers as an object of strings',
      'mcpServers.b.timeoutMs: expected a whole number of milliseconds from 1 to 86400000',
    ]);
  });

  it('needs the mcpServers object', () => {
    expect(issues([])).toEqual([': expected a JSON object with "mcpServers"']);
    expect(issues({ servers: {} })).toEqual(['mcpServers: expected "mcpServers" to be an object of servers by name']);
  });
});
