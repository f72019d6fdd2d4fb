import { describe, expect, it } from 'vitest';
import { cachePrefixOf, PromptCacheBook, shortPrefix } from '../../../src/subsystems/thinking/cache-health.js';
import { minimumCacheableTokens } from '../../../src/subsystems/thinking/cache-minimums.js';
import {
  cacheBreakpoint,
  cacheTtlMs,
  priceForCacheTtl,
  withCacheTtl,
} from '../../../src/subsystems/thinking/cache-ttl.js';
import { costMicroUsd, resolvePrice } from '../../../src/subsystems/thinking/pricing.js';

const mark = { type: 'ephemeral' as const };
const tools = [
  { name: 'a', description: 'x' },
  { name: 'b', description: 'y', cache_control: mark },
];
const system = (identity: string) => [
  { type: 'text', text: identity },
  { type: 'text', text: 'instructions '.repeat(300), cache_control: mark },
];
const usage = (read: number, write: number, input = 100) => ({
  inputTokens: input,
  outputTokens: 10,
  cacheReadTokens: read,
  cacheWriteTokens: write,
});
const TTL = cacheTtlMs('5m');

describe('cachePrefixOf', () => {
  it('gives byte-identical prefixes the same hash and any changed byte another', () => {
    const a = cachePrefixOf('think', tools, system('You are Vigil.'));
    expect(cachePrefixOf('think', structuredClone(tools), system('You are Vigil.')).hash).toBe(a.hash);
    expect(cachePrefixOf('think', tools, system('You are Vigil!')).hash).not.toBe(a.hash);
    expect(cachePrefixOf('think', [...tools].reverse(), system('You are Vigil.')).hash).not.toBe(a.hash);
  });

  it('counts only what lies before the last breakpoint, with the conservative estimate', () => {
    const withTail = [...system('You are Vigil.'), { type: 'text', text: 'a volatile tail '.repeat(100) }];
    const plain = cachePrefixOf('task', tools, system('You are Vigil.'));
    expect(cachePrefixOf('task', tools, withTail)).toEqual(plain);
    // One token per three bytes: the 3,900-byte instructions alone are 1,300 tokens.
    expect(plain.estimatedTokens).toBeGreaterThan(1300);
    const unmarked = [{ type: 'text', text: 'no breakpoint' }];
    expect(cachePrefixOf('think', tools, unmarked).estimatedTokens).toBe(
      Math.ceil(Buffer.byteLength(JSON.stringify(tools)) / 3),
    );
  });
});

describe('PromptCacheBook', () => {
  const prefix = cachePrefixOf('think', tools, system('You are Vigil.'));
  const changed = cachePrefixOf('think', tools, system('You are someone else.'));

  it('expects nothing of a first call and nothing of a call after the lifetime ran out', () => {
    const book = new PromptCacheBook(TTL);
    expect(book.observe(prefix, usage(0, 2000), 0)).toEqual({ miss: null, uncached: false });
    expect(book.observe(prefix, usage(2000, 0), TTL)).toEqual({ miss: null, uncached: false });
    expect(book.observe(prefix, usage(0, 2000), 2 * TTL + 1)).toEqual({ miss: null, uncached: false });
  });

  it('reports not_read when the same prefix, cached within its lifetime, was read from nothing', () => {
    const book = new PromptCacheBook(TTL);
    book.observe(prefix, usage(0, 2000), 0);
    expect(book.observe(prefix, usage(0, 2000), 60_000).miss).toEqual({ expected: 2000, got: 0, reason: 'not_read' });
    // The rewrite cached it again: the next call is expected to read it.
    expect(book.observe(prefix, usage(2000, 0), 120_000).miss).toBeNull();
  });

  it('reports prefix_changed when a call of the same kind sends another prefix while the old one is live', () => {
    const book = new PromptCacheBook(TTL);
    book.observe(prefix, usage(0, 2000), 0);
    expect(book.observe(changed, usage(900, 1100), 1000).miss).toEqual({
      expected: 2000,
      got: 900,
      reason: 'prefix_changed',
    });
    // The new prefix is now the one cached: reading it is no miss.
    expect(book.observe(changed, usage(2000, 0), 2000).miss).toBeNull();
  });

  it('does not blame a task for a prefix the thinks use, nor expect a read of a prefix never cached', () => {
    const book = new PromptCacheBook(TTL);
    book.observe(prefix, usage(0, 2000), 0);
    const task = cachePrefixOf('task', tools, system('You are Vigil.'));
    expect(book.observe(task, usage(2000, 0), 10).miss).toBeNull();
    const uncachedBook = new PromptCacheBook(TTL);
    expect(uncachedBook.observe(prefix, usage(0, 0), 0)).toEqual({ miss: null, uncached: true });
    expect(uncachedBook.observe(prefix, usage(0, 0), 10)).toEqual({ miss: null, uncached: false });
  });
});

describe('shortPrefix and the minimums', () => {
  it('knows the published minimums, dated snapshots included, and no guess for the others', () => {
    expect(minimumCacheableTokens('claude-haiku-4-5')).toBe(4096);
    expect(minimumCacheableTokens('claude-haiku-4-5-20251001')).toBe(4096);
    expect(minimumCacheableTokens('claude-opus-4-5')).toBe(4096);
    expect(minimumCacheableTokens('claude-sonnet-4-5-20250929')).toBe(1024);
    expect(minimumCacheableTokens('claude-3-haiku')).toBe(2048);
    expect(minimumCacheableTokens('claude-opus-5')).toBe(512);
    expect(minimumCacheableTokens('claude-sonnet-5-5')).toBeUndefined();
  });

  it('finds a prefix short only when even the over-estimate is under the minimum', () => {
    const prefix = { kind: 'think' as const, hash: 'h', estimatedTokens: 2800 };
    expect(shortPrefix(prefix, 4096)).toEqual({ prefixTokens: 2800, minimumTokens: 4096 });
    expect(shortPrefix(prefix, 1024)).toBeNull();
    expect(shortPrefix(prefix, undefined)).toBeNull();
  });
});

describe('cache lifetime', () => {
  it('sends the default 5m breakpoint as ever and a 1h one with its ttl', () => {
    expect(cacheBreakpoint('5m')).toEqual({ type: 'ephemeral' });
    expect(cacheBreakpoint('1h')).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(withCacheTtl(tools, '5m')).toBe(tools);
    expect(withCacheTtl(tools, '1h').map((t) => t.cache_control)).toEqual([
      undefined,
      { type: 'ephemeral', ttl: '1h' },
    ]);
    expect(cacheTtlMs('1h')).toBe(3_600_000);
  });

  it('prices 1h cache writes at twice base input (5m ones stay at 1.25x), in every band', () => {
    const sonnet = resolvePrice('claude-sonnet-4-5');
    expect(priceForCacheTtl(sonnet, '5m')).toBe(sonnet);
    expect(priceForCacheTtl(sonnet, '1h')).toEqual({ ...sonnet, cacheWritePerMTok: 6 });
    const write = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 1_000_000 };
    expect(costMicroUsd(write, priceForCacheTtl(sonnet, '1h'))).toBe(6_000_000);
    expect(costMicroUsd(write, sonnet)).toBe(3_750_000);
    const haiku55 = priceForCacheTtl(resolvePrice('claude-haiku-5-5'), '1h');
    expect(haiku55.cacheWritePerMTok).toBeCloseTo(0.2, 12);
    expect(haiku55.longPrompt?.price.cacheWritePerMTok).toBeCloseTo(1, 12);
  });
});
