/**
 * POST /v1/messages/count_tokens (docs/messages.md): `{input_tokens}` for a Messages request.
 * The provider's own count where the routed model's provider has one (Anthropic's
 * /v1/messages/count_tokens, the body as sent but for `model`), else, or when that call fails,
 * the gateway's bounded tokenizer estimate: the pipeline's count stage (pipeline/count.ts). Authenticated and rate limited like every request,
 * and refused with the 402 the model's requests would get (billing/count-tokens.ts); never
 * billed, no ledger row. Errors in Anthropic's envelope.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { validate } from "../../core/validate.js";
import type { Gateway } from "../../gateway.js";
import { authenticate } from "../../http/authenticate.js";
import { parseJsonBody } from "../../http/body.js";
import { Exchange } from "../../http/exchange.js";
import { countStage } from "../../pipeline/count.js";
import { anthropicEnvelope, messagesHeaders } from "./route.js";
import { CountTokensRequest } from "./schema.js";
import { toChatRequest } from "./translate.js";

export const COUNT_TOKENS_PATH = "/v1/messages/count_tokens";

export function serveCountTokens(gw: Gateway, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const ex = new Exchange(req, res, gw.config.server.compat !== "strict", gw.config.server);
  gw.obs.begin(ex.state.rec, COUNT_TOKENS_PATH, req);
  const done = countTokens(gw, ex).catch((err: unknown) => ex.fail(err, anthropicEnvelope));
  gw.pending.add(done);
  return done.finally(() => {
    gw.pending.delete(done);
    gw.obs.respond(ex.state.rec);
  });
}

async function countTokens(gw: Gateway, ex: Exchange): Promise<void> {
  const key = await authenticate(gw, ex.state, ex.credential(), () => ex.ip); // the key's rate limit counts it
  const json = parseJsonBody(await ex.body(gw.config.server.maxBodyBytes)) as Record<string, unknown>;
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
