/** The wire shapes of the tools area (CONTRACT §8): `tools.list` and its entries. */
import { z } from 'zod';

/** One tool the agent may use, as `tools.list` shows it. */
export const ToolViewSchema = z.object({
  /** The name the model sees: `mcp__SERVER__TOOL`. */
  name: z.string(),
  /** The configured server it comes from. */
  server: z.string(),
  /** Its name on that server (differs from the part in `name` only where a character had to be replaced). */
  tool: z.string(),
  description: z.string(),
  /** A call waits for an operator's `tools.approve` before it runs. */
  requireApproval: z.boolean(),
  /** A call whose outcome a crash left unknown may be run again. */
  idempotent: z.boolean(),
  /** Its server is connected now; an unavailable tool keeps its place in the list (and in the model's prompt). */
  available: z.boolean(),
});

/** One entry of `tools.list`. */
export type ToolView = z.infer<typeof ToolViewSchema>;
