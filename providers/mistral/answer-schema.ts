/**
 * The fields this preset reads beyond the OpenAI format (../openai-compatible/answer-schema.ts):
 * its model list. A list that breaks it is an invalid answer (docs/limits.md).
 */
import { z } from "zod";

export const mistralModelList = z.object({
  data: z.array(
    z.object({ id: z.string(), max_context_length: z.number().nullish(), capabilities: z.object({ completion_chat: z.boolean().nullish() }).nullish() }),
  ),
});
