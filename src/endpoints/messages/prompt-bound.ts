/**
 * An upper bound on a Messages request's prompt tokens without a tokenizer (as billing/bill.ts
 * bounds chat's): a token is at least one byte, so the body's bytes bound it, except images,
 * whose base64 is not what the model reads: their bytes are replaced by a generous token cost.
 * Usage the gateway counts itself (no usage reported, a cut stream) is cut to it; usage the
 * provider reports is its bill (docs/limits.md).
 */
import type { MessagesRequest } from "./schema.js";

/** Above every provider's published maximum for one image (billing/bill.ts IMAGE_TOKENS_MAX). */
const IMAGE_TOKENS = 3000;
/** Tokens a provider may add to what the client sent (a tool-use system prompt). */
const SLACK = 4096;

export function promptBound(bodyBytes: number, req: MessagesRequest): number {
  let bound = bodyBytes + SLACK;
  const blocks = (content: unknown): void => {
    if (!Array.isArray(content)) return;
    for (const b of content as Array<{ type?: unknown; source?: { type?: unknown; data?: unknown }; content?: unknown }>) {
      const data = b.source?.data;
      if (b.type === "image" && b.source?.type === "base64" && typeof data === "string") bound += IMAGE_TOKENS - data.length;
      if (b.type === "tool_result") blocks(b.content);
    }
  };
  for (const m of req.messages) blocks(m.content);
  return Math.max(bound, SLACK);
}
