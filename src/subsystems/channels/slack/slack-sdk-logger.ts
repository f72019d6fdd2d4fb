/**
 * The Slack SDK's logger interface over Vigil's: its warnings and errors at debug with tokens cut out (the core logs
 * each failure itself, classified); its debug and info chatter dropped, since those lines hold whole payloads (what
 * people wrote) and request bodies.
 */
import { LogLevel, type Logger } from '@slack/socket-mode';
import type { VigilLogger } from '../../../shared/logger.js';

/** A `@slack/logger` Logger writing to `log` at debug with `secrets` redacted. */
export function sdkLogger(log: VigilLogger, secrets: readonly string[]): Logger {
  const write = (...parts: unknown[]) => {
    let text = parts.map((part) => (typeof part === 'string' ? part : String(part))).join(' ');
    for (const secret of secrets) if (secret !== '') text = text.split(secret).join('<token>');
    log.debug({ slack: text }, 'slack sdk');
  };
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: write,
    error: write,
    setLevel: () => undefined,
    getLevel: () => LogLevel.WARN,
    setName: () => undefined,
  };
}
