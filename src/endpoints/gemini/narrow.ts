/**
 * The route stage of a Gemini request: native endpoints (a plugin with `native.gemini`) take
 * every request Google takes; the others only one that translates whole (no problems, and
 * every feature it uses served: catalog/capabilities.ts, as chat narrows). Nothing left is the
 * 400 naming the first field that could not be honoured. The catalog order is kept (it is the
 * order of a `fixed` route). Embeddings narrow the same way (embed.ts).
 */
import { nativeOf } from "../../pipeline/native.js";
import { needsOf, narrowRoute } from "../../catalog/capabilities.js";
import type { Route, RoutedEndpoint } from "../../catalog/catalog.js";
import { requireChatModel } from "../../catalog/model-kind.js";
import type { ChatRequest } from "../../core/chat-request.js";
import { unsupported } from "../../plugin/contract.js";
import type { Problem } from "./translate.js";

export function narrowGemini(found: Route, req: ChatRequest, problems: Problem[]): Route {
  requireChatModel(found.model);
  const others = found.endpoints.filter((e) => !nativeOf(e, "gemini"));
  // Thinking settings are a hint where they cannot be honoured: a model that does not reason
  // (the catalog says so) or providers without a reasoning switch (Gemini CLI sends them always).
  const canReason = found.model.capabilities?.reasoning !== false && others.some((e) => e.instance.plugin.features?.includes("reasoning_effort"));
  if (!canReason) delete req.reasoning_effort;
  return nativeOrTranslated(
    found,
    (e) => nativeOf(e, "gemini") !== undefined,
    problems,
    (route) => narrowRoute(route, needsOf(req)),
  );
}

/**
 * The endpoints `native` says take the request as sent, and those of the others that `narrow`
 * keeps when there are no problems; nothing left is the first refusal.
 */
export function nativeOrTranslated(found: Route, native: (e: RoutedEndpoint) => boolean, problems: Problem[], narrow: (others: Route) => Route): Route {
  const others = found.endpoints.filter((e) => !native(e));
  let translated: Route["endpoints"] = [];
  let refusal: unknown;
  if (others.length) {
    const first = problems[0];
    if (first) refusal = unsupported(first.param, first.problem);
    else {
      try {
        translated = narrow({ ...found, endpoints: others }).endpoints;
      } catch (err) {
        refusal = err;
      }
    }
  }
  const kept = found.endpoints.filter((e) => native(e) || translated.includes(e));
  if (!kept.length) throw refusal;
  return kept.length === found.endpoints.length ? found : { ...found, endpoints: kept };
}
