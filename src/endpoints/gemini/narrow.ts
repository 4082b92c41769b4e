/**
 * The route stage of a Gemini request: native endpoints (a plugin with `nativeGemini`) take
 * every request Google takes; the others only one that translates whole (no problems, and
 * every feature it uses served: catalog/capabilities.ts, as chat narrows). Nothing left is the
 * 400 naming the first field that could not be honoured. The catalog order is kept (it is the
 * order of a `fixed` route).
 */
import { needsOf, narrowRoute } from "../../catalog/capabilities.js";
import type { Route } from "../../catalog/catalog.js";
import { requireChatModel } from "../../catalog/model-kind.js";
import type { ChatRequest } from "../../core/chat-request.js";
import { unsupported } from "../../plugin/contract.js";
import type { Problem } from "./translate.js";

export function narrowGemini(found: Route, req: ChatRequest, problems: Problem[]): Route {
  requireChatModel(found.model);
  const native = found.endpoints.filter((e) => e.instance.plugin.nativeGemini);
  const others = found.endpoints.filter((e) => !e.instance.plugin.nativeGemini);
  // Thinking settings are a hint where they cannot be honoured: a model that does not reason
  // (the catalog says so) or providers without a reasoning switch (Gemini CLI sends them always).
  const canReason = found.model.capabilities?.reasoning !== false && others.some((e) => e.instance.plugin.features?.includes("reasoning_effort"));
  if (!canReason) delete req.reasoning_effort;
  let translated: Route["endpoints"] = [];
  let refusal: unknown;
  if (others.length) {
    const first = problems[0];
    if (first) refusal = unsupported(first.param, first.problem);
    else {
      try {
        translated = narrowRoute({ ...found, endpoints: others }, needsOf(req)).endpoints;
      } catch (err) {
        refusal = err;
      }
    }
  }
  const kept = found.endpoints.filter((e) => native.includes(e) || translated.includes(e));
  if (!kept.length) throw refusal;
  return kept.length === found.endpoints.length ? found : { ...found, endpoints: kept };
}
