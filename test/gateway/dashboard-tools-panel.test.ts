/**
 * The dashboard's tools panel as it renders `tools.list`, without a browser: the panel module as served, on a minimal
 * stand-in of the few DOM calls it makes (the Chromium run is test/e2e/dashboard-tools.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolsListEntry } from '../../src/protocol/tools.schema.js';

/** Just enough of an element for dom-helpers' `h` and the panel's refresh. */
class FakeElement {
  readonly dataset: Record<string, string> = {};
  readonly attributes = new Map<string, string>();
  children: Array<FakeElement | string> = [];
  parent: FakeElement | undefined;

  constructor(readonly tagName: string) {}

  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  addEventListener(): void {}
  append(...nodes: Array<FakeElement | string>): void {
    for (const node of nodes) {
      if (node instanceof FakeElement) node.parent = this;
      this.children.push(node);
    }
  }
  replaceChildren(...nodes: Array<FakeElement | string>): void {
    this.children = [];
    this.append(...nodes);
  }
  remove(): void {
    if (this.parent !== undefined) this.parent.children = this.parent.children.filter((child) => child !== this);
  }
  get textContent(): string {
    return this.children.map((child) => (typeof child === 'string' ? child : child.textContent)).join('');
  }
  set textContent(text: string) {
    this.children = [text];
  }
  hasClass(name: string): boolean {
    return (this.attributes.get('class') ?? '').split(' ').includes(name);
  }
  /** `.class` selectors only: the panel asks for nothing else while rendering. */
  querySelector(selector: string): FakeElement | null {
    for (const child of this.children) {
      if (typeof child === 'string') continue;
      if (child.hasClass(selector.slice(1))) return child;
      const deeper = child.querySelector(selector);
      if (deeper !== null) return deeper;
    }
    return null;
  }
}

interface ToolsPanelModule {
  createToolsPanel: (client: unknown) => { refresh(): Promise<void> };
}
// Imported by URL: the root TypeScript project reads no JavaScript; the module's own checks run in the dashboard's.
const panelUrl = new URL('../../src/gateway/dashboard/tools.panel.js', import.meta.url).href;
const { createToolsPanel } = (await import(panelUrl)) as ToolsPanelModule;

const NOW = Date.parse('2026-12-01T10:00:00Z');
let page: Record<string, FakeElement>;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  page = {
    tools: new FakeElement('ul'),
    'tools-pending': new FakeElement('ul'),
    'tools-count': new FakeElement('span'),
  };
  vi.stubGlobal('document', {
    createElement: (tag: string) => new FakeElement(tag),
    getElementById: (id: string) => page[id] ?? null,
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** The rows the panel renders for `entries`. */
async function render(entries: ToolsListEntry[]): Promise<FakeElement[]> {
  const client = { tools: { list: async () => entries, pending: async () => [] } };
  await createToolsPanel(client).refresh();
  return page['tools']!.children as FakeElement[];
}

describe('the dashboard tools panel', () => {
  it('shows a server that cannot be reached in a row of its own: why, and when it is tried again', async () => {
    const error = 'it could not be connected (TypeError ENOTFOUND)';
    const rows = await render([
      {
        name: 'mcp__local__echo',
        server: 'local',
        tool: 'echo',
        description: 'Echoes its text.',
        requireApproval: false,
        idempotent: false,
        available: true,
        state: 'up',
      },
      { server: 'remote', state: 'needs_auth' },
      { server: 'linear', state: 'down', error, nextRetryAt: new Date(NOW + 30_000).toISOString() },
      { server: 'slow', state: 'down', error, nextRetryAt: new Date(NOW - 1_000).toISOString() },
    ]);
    expect(rows.map((row) => [row.dataset['name'] ?? row.dataset['server'], row.dataset['state']])).toEqual([
      ['mcp__local__echo', 'up'],
      ['remote', 'needs_auth'],
      ['linear', 'down'],
      ['slow', 'down'],
    ]);
    const [, signIn, linear, slow] = rows;
    expect(signIn!.querySelector('.pill')?.textContent).toBe('needs sign-in');
    expect(linear!.hasClass('tool-down')).toBe(true);
    expect(linear!.querySelector('.pill')?.textContent).toBe('unreachable');
    expect(linear!.querySelector('.tool-down-reason')?.textContent).toBe(`${error}; next attempt in 30s`);
    // The time named has passed: that attempt is under way, and the server stays down until one succeeds.
    expect(slow!.querySelector('.tool-down-reason')?.textContent).toBe(`${error}; retrying now`);
    // Only tools are counted as tools.
    expect(page['tools-count']!.textContent).toBe('0 waiting · 1 tool');
  });
});
