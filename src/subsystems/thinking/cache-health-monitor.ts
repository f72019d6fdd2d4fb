/** Reports prompt-cache health on the bus: prefixes under the model's minimum, and calls that missed the cache. */
import type { EventBus } from '../../events/event-bus.js';
import type { Clock } from '../../shared/clock.js';
import { PromptCacheBook, shortPrefix, type CachePrefix, type PrefixKind } from './cache-health.js';
import { minimumCacheableTokens } from './cache-minimums.js';
import { cacheTtlMs, type CacheTtl } from './cache-ttl.js';
import type { TokenUsage } from './thinker.schema.js';

/** What the runtime gives a thinker to report cache health with: where to report, and the time. */
export interface CacheHealthDeps {
  bus: EventBus;
  clock: Clock;
}

/** What the monitor needs: the runtime's deps, and the model and lifetime it judges against. */
export interface CacheHealthOptions extends CacheHealthDeps {
  model: string;
  ttl: CacheTtl;
}

/**
 * The thinker tells it each prefix it is about to send (`checkPrefix`) and each call's usage (`observe`); it emits
 * `think.cache_prefix_short` once per new prefix that cannot be cached and `think.cache_miss` for each call that
 * should have read the cache and did not. The event log mirrors both as warn lines.
 */
export class CacheHealth {
  private readonly book: PromptCacheBook;
  private readonly minimumTokens: number | undefined;
  private readonly checked = new Map<PrefixKind, string>();
  private readonly reportedShort = new Set<string>();

  constructor(private readonly options: CacheHealthOptions) {
    this.book = new PromptCacheBook(cacheTtlMs(options.ttl));
    this.minimumTokens = minimumCacheableTokens(options.model);
  }

  /** Checks a prefix against the model's minimum, once per change of the prefix of its kind (at boot, after a tool change). */
  checkPrefix(prefix: CachePrefix): void {
    if (this.checked.get(prefix.kind) === prefix.hash) return;
    this.checked.set(prefix.kind, prefix.hash);
    const short = shortPrefix(prefix, this.minimumTokens);
    // A task shares the think's prefix byte for byte: the same bytes are reported once, whoever sends them.
    if (short === null || this.reportedShort.has(prefix.hash)) return;
    this.reportedShort.add(prefix.hash);
    this.options.bus.emit('think.cache_prefix_short', {
      model: this.options.model,
      prefix: prefix.kind,
      prefixTokens: short.prefixTokens,
      minimumTokens: short.minimumTokens,
      source: 'estimate',
    });
  }

  /** Judges one finished model call that was sent with `prefix`. */
  observe(prefix: CachePrefix, usage: TokenUsage): void {
    const verdict = this.book.observe(prefix, usage, this.options.clock.now());
    if (verdict.miss !== null)
      this.options.bus.emit('think.cache_miss', { model: this.options.model, prefix: prefix.kind, ...verdict.miss });
    // The estimate may put a prefix above a minimum the real count is under, or the minimum may be unknown: the
    // API's zero counts settle it, once per prefix.
    if (verdict.uncached && !this.reportedShort.has(prefix.hash)) {
      this.reportedShort.add(prefix.hash);
      this.options.bus.emit('think.cache_prefix_short', {
        model: this.options.model,
        prefix: prefix.kind,
        prefixTokens: prefix.estimatedTokens,
        minimumTokens: this.minimumTokens ?? null,
        source: 'api',
      });
    }
  }
}
