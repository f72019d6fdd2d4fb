/** The checkpoint methods' params and results on the wire (CONTRACT §4). */
import { z } from 'zod';
import { isoTime } from './iso-time.js';

/** One entry of `checkpoint.list`. */
export const CheckpointSummarySchema = z.object({
  id: z.string(),
  createdAt: isoTime,
  beatCount: z.number().int().nonnegative(),
  sizeBytes: z.number().int().nonnegative(),
  formatVersion: z.number().int().positive(),
});
export type CheckpointSummary = z.infer<typeof CheckpointSummarySchema>;

/** `checkpoint.create`. */
export const CheckpointCreatedSchema = z.object({
  id: z.string(),
  beatCount: z.number().int().nonnegative(),
  sizeBytes: z.number().int().nonnegative(),
});
export type CheckpointCreated = z.infer<typeof CheckpointCreatedSchema>;

/** `checkpoint.restore` once done. */
export const CheckpointRestoredSchema = z.object({ restored: z.string(), beatCount: z.number().int().nonnegative() });
export type CheckpointRestored = z.infer<typeof CheckpointRestoredSchema>;

/** `checkpoint.list` params. */
export const ListCheckpointsParamsSchema = z.object({ limit: z.number().int().min(1).max(10_000).optional() });
export type ListCheckpointsParams = z.infer<typeof ListCheckpointsParamsSchema>;

/** Params naming one checkpoint (`checkpoint.get`, `checkpoint.export`). */
export const CheckpointIdParamsSchema = z.object({ id: z.string().min(1).max(200) });
export type CheckpointIdParams = z.infer<typeof CheckpointIdParamsSchema>;

/** `checkpoint.restore` params: without `confirm: true` the answer is the -32001 confirmation error. */
export const RestoreParamsSchema = z.object({ id: z.string().min(1).max(200), confirm: z.boolean().optional() });
export type RestoreParams = z.infer<typeof RestoreParamsSchema>;

/** The -32001 error's `data`: what a confirmed restore would bring back. */
export const RestoreConfirmationSchema = z.object({
  id: z.string(),
  beatCount: z.number().int().nonnegative(),
  createdAt: isoTime,
});
export type RestoreConfirmation = z.infer<typeof RestoreConfirmationSchema>;
