/**
 * The fields this preset reads beyond the OpenAI format (../openai-compatible/answer-schema.ts):
 * its model list, a bare array. A list that breaks it is an invalid answer (docs/limits.md).
 */
import { z } from "zod";

export const togetherModelList = z.array(z.object({ id: z.string(), type: z.string().nullish(), context_length: z.number().nullish() }));
