/** The params of the think trace methods (CONTRACT §10): `thinks.list` pages backwards by id, `thinks.get` names one. */
import { z } from 'zod';

/** The most thinks one `thinks.list` answers. */
export const MAX_THINKS_PAGE = 1000;

/** `thinks.list` params: the newest `limit` thinks (default 20), older than the think `before` when given. */
export const ThinksListParamsSchema = z.object({
  limit: z.number().int().min(1).max(MAX_THINKS_PAGE).optional(),
  before: z.string().min(1).max(200).optional(),
});
export type ThinksListParams = z.infer<typeof ThinksListParamsSchema>;

/** `thinks.get` params. */
export const ThinkIdParamsSchema = z.object({ id: z.string().min(1).max(200) });
export type ThinkIdParams = z.infer<typeof ThinkIdParamsSchema>;
