/**
 * Prompt-cache health, pure: what a request's cached prefix is (hash and size), and whether a call that should have
 * read the cache did. State in, verdict out; time arrives as an argument.
 */
import { createHash } from 'node:crypto';
import { estimateTokens } from './token-estimate.js';
import type { TokenUsage } from './thinker.schema.js';

/** Which prompt a prefix starts: a think's, or a sub-agent task's. */
export type PrefixKind = 'think' | 'task';

/** A request's cached prefix: everything up to its last breakpoint in tools and system. */
export interface CachePrefix {
  readonly kind: PrefixKind;
  /** sha256 of the prefix's JSON: equal hashes, byte-identical prefixes. */
  readonly hash: string;
  /** Conservative token estimate (`estimateTokens`: one token per three bytes), an over-count by design. */
  readonly estimatedTokens: number;
}

type Block = { readonly cache_control?: unknown };
const hasBreakpoint = (block: Block) => block.cache_control !== undefined && block.cache_control !== null;

/** The blocks up to and including the last one carrying a breakpoint (none: nothing is cached). */
function throughLastBreakpoint<T extends Block>(blocks: readonly T[]): readonly T[] {
  for (let i = blocks.length - 1; i >= 0; i--) if (hasBreakpoint(blocks[i]!)) return blocks.slice(0, i + 1);
  return [];
}

/**
 * The cached prefix of a request with these tools and system blocks (the API renders tools, then system, then
 * messages; a breakpoint caches everything before it). When the system carries a breakpoint the tools are all in
 * the prefix; otherwise only the tools up to their own last breakpoint are.
 */
export function cachePrefixOf(
  kind: PrefixKind,
  tools: readonly Block[],
  system: readonly (Block & { text: string })[],
): CachePrefix {
  const cachedSystem = throughLastBreakpoint(system);
  const cachedTools = cachedSystem.length > 0 ? tools : throughLastBreakpoint(tools);
  const json = JSON.stringify({ tools: cachedTools, system: cachedSystem });
  const estimatedTokens =
    (cachedTools.length === 0 ? 0 : estimateTokens(JSON.stringify(cachedTools))) +
    cachedSystem.reduce((sum, block) => sum + estimateTokens(block.text), 0);
  return { kind, hash: createHash('sha256').update(json).digest('hex'), estimatedTokens };
}

/** A call that should have read the cache and did not. */
export interface CacheMiss {
  /** Tokens an earlier call cached within the cache's lifetime. */
  readonly expected: number;
  /** Tokens this call read from the cache. */
  readonly got: number;
  readonly reason: 'prefix_changed' | 'not_read';
}

/** What one call says about the cache. */
export interface CacheVerdict {
  readonly miss: CacheMiss | null;
  /** First sight of a prefix the API neither wrote nor read: it is not cacheable (under the model's minimum). */
  readonly uncached: boolean;
}

interface Entry {
  /** Tokens of the prefix as the API counted them (the least seen, so later breakpoints deeper in never inflate it). */
  tokens: number;
  lastUsedAt: number;
}

/**
 * The prefixes the API has cached, as its usage reports show them, and the judgement of each new call against them.
 * A prefix is expected to be read when the same bytes were cached within the lifetime (`not_read` if nothing was read),
 * and a call of the same kind whose prefix differs from the one just cached is a `prefix_changed` miss.
 */
export class PromptCacheBook {
  private readonly entries = new Map<string, Entry>();
  private readonly latest = new Map<PrefixKind, string>();
  private readonly reportedUncached = new Set<string>();

  constructor(private readonly ttlMs: number) {}

  /** Judges a finished call with `prefix` and its reported `usage` at time `now` (ms), then books what it cached. */
  observe(prefix: CachePrefix, usage: TokenUsage, now: number): CacheVerdict {
    const got = usage.cacheReadTokens;
    const same = this.live(prefix.hash, now);
    const previousHash = this.latest.get(prefix.kind);
    const previous =
      previousHash === undefined || previousHash === prefix.hash ? undefined : this.live(previousHash, now);
    let miss: CacheMiss | null = null;
    if (same !== undefined) {
      if (got === 0) miss = { expected: same.tokens, got, reason: 'not_read' };
    } else if (previous !== undefined && got < previous.tokens) {
      miss = { expected: previous.tokens, got, reason: 'prefix_changed' };
    }
    const cached = usage.cacheReadTokens + usage.cacheWriteTokens;
    const uncached = cached === 0 && !this.reportedUncached.has(prefix.hash);
    if (uncached) this.reportedUncached.add(prefix.hash);
    if (cached > 0) {
      const entry = this.entries.get(prefix.hash);
      const tokens = entry === undefined || entry.tokens === 0 ? cached : Math.min(entry.tokens, cached);
      this.entries.set(prefix.hash, { tokens, lastUsedAt: now });
    }
    this.latest.set(prefix.kind, prefix.hash);
    this.prune(now);
    return { miss, uncached };
  }

  private live(hash: string, now: number): Entry | undefined {
    const entry = this.entries.get(hash);
    return entry !== undefined && now - entry.lastUsedAt <= this.ttlMs ? entry : undefined;
  }

  // Expired entries can never be read again: dropping them keeps the book as small as the set of live prefixes.
  private prune(now: number): void {
    for (const [hash, entry] of this.entries) if (now - entry.lastUsedAt > this.ttlMs) this.entries.delete(hash);
  }
}

/** An under-minimum finding about a prefix, in the event's terms. */
export interface ShortPrefix {
  readonly prefixTokens: number;
  readonly minimumTokens: number;
}

/**
 * Whether a prefix is under the model's minimum by its estimate. The estimate over-counts (three bytes a token), so
 * a prefix it puts under the minimum is under it for certain: the warning never cries wolf, at the price of missing
 * a prefix just above the real count's reach, which the API's own zero counts then reveal (`uncached`).
 */
export function shortPrefix(prefix: CachePrefix, minimumTokens: number | undefined): ShortPrefix | null {
  if (minimumTokens === undefined || prefix.estimatedTokens >= minimumTokens) return null;
  return { prefixTokens: prefix.estimatedTokens, minimumTokens };
}
