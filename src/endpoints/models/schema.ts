/** A model entry and the list, as GET /v1/models and /v1/models/{id} answer (for GET /v1/openapi.json). */
import { z } from "zod";

export const ModelEntry = z.object({
  id: z.string(),
  object: z.literal("model"),
  created: z.number().int(),
  owned_by: z.string(),
  capabilities: z.object({ chat: z.boolean(), completions: z.boolean(), embeddings: z.boolean() }),
  pricing: z.object({ prompt: z.string(), completion: z.string() }).optional(),
  context_length: z.number().int().optional(),
  /** Set on an alias entry (config `aliases`): the model id it resolves to. */
  alias_of: z.string().optional(),
});

export const ModelList = z.object({ object: z.literal("list"), data: z.array(ModelEntry) });
