/** What the turn-work log stores per think: the model's own tool calls, for the debrief that validates its turn. */
import { z } from 'zod';

/** One think's work: the model's own tool calls (remember, feel, goals, tasks), each as its tool name and arguments. */
export const TurnWorkRecordSchema = z.object({
  /** Epoch ms the think ended. */
  at: z.number(),
  turnId: z.string(),
  calls: z.array(z.object({ name: z.string(), args: z.string() })),
});
export type TurnWorkRecord = z.infer<typeof TurnWorkRecordSchema>;
