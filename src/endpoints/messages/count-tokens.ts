/**
 * POST /v1/messages/count_tokens (docs/messages.md): `{input_tokens}` for a Messages request.
 * The provider's own count where the routed model's provider has one (Anthropic's
 * /v1/messages/count_tokens, the body as sent but for `model`), else, or when that call fails,
 * the gateway's bounded tokenizer estimate: the pipeline's count stage (pipeline/count.ts). Authenticated and rate limited like every request,
 * and refused with the 402 the model's requests would get (billing/count-tokens.ts); never
 * billed, no ledger row. Errors in Anthropic's envelope.
 */
import { validate } from "../../core/validate.js";
import { parseJsonBody } from "../../http/body.js";
import type { Exchange } from "../../http/exchange.js";
import type { AdapterServices } from "../../pipeline/endpoint.js";
import type { KeyedRoute } from "../../pipeline/serve.js";
import type { KeyRecord } from "../../store/index.js";
import { countStage } from "../../pipeline/count.js";
import { anthropicEnvelope, messagesHeaders } from "./route.js";
import { CountTokensRequest } from "./schema.js";
import { toChatRequest } from "./translate.js";

const COUNT_TOKENS_PATH = "/v1/messages/count_tokens";

/** The count route, served by the pipeline (pipeline/serve.ts serveKeyed, pipeline/count.ts). */
export const COUNT_TOKENS: KeyedRoute = {
  path: COUNT_TOKENS_PATH,
  errorEnvelope: anthropicEnvelope,
  answer: countTokens,
};

async function countTokens(gw: AdapterServices, ex: Exchange, key: KeyRecord, raw: Buffer): Promise<void> {
  const json = parseJsonBody(raw) as Record<string, unknown>;
  const req = validate(CountTokensRequest, json);
  const headers = messagesHeaders(ex);
  const counted = await countStage(gw, key, ex.state.id, ex.signal, {
    api: "messages",
    model: req.model,
    vendor: "anthropic",
    chat: toChatRequest({ ...req, max_tokens: 1 }).chat,
    routed: (route) => void (ex.state.rec.model = route.model.id),
    request: (n, ctx) => n.countTokens?.({ ...json, model: ctx.model }, headers, ctx),
    answer(_n, answer) {
      const count = (answer as { input_tokens?: unknown } | null)?.input_tokens;
      return typeof count === "number" && Number.isSafeInteger(count) && count >= 0 ? count : undefined;
    },
  });
  ex.json(200, JSON.stringify({ input_tokens: counted.provider ?? counted.estimate }));
}
