/**
 * The fields this adapter reads beyond the OpenAI format (../openai-compatible/answer-schema.ts):
 * the resource's model list. A list that breaks it is an invalid answer (docs/limits.md).
 */
import { z } from "zod";

export const azureModelList = z.object({
  data: z.array(z.object({ id: z.string(), capabilities: z.object({ chat_completion: z.boolean().nullish() }).nullish() })),
});
