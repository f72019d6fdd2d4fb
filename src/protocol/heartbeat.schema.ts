/** `heartbeat.status` on the wire. */
import { z } from 'zod';
import { isoTime } from './iso-time.js';

/** `heartbeat.status`. */
export const HeartbeatStatusSchema = z.object({
  beatCount: z.number().int().nonnegative(),
  phase: z.enum(['sense', 'think', 'integrate', 'sleep', 'dormant', 'paused', 'stopped']),
  state: z.enum(['awake', 'dormant']),
  /** Seed 002's status: working while a think runs, wrapping up once told to wind down, else idle. */
  activity: z.enum(['idle', 'working', 'wrapping_up']),
  intervalMs: z.number().nonnegative(),
  startedAt: isoTime,
  restoredFrom: z.string().nullable(),
  unreadReplies: z.number().int().nonnegative(),
  /** User messages waiting for an answer. */
  pendingMessages: z.number().int().nonnegative(),
  consecutiveFailures: z.number().int().nonnegative(),
  thinker: z.string(),
  version: z.string(),
});
export type HeartbeatStatus = z.infer<typeof HeartbeatStatusSchema>;
