/**
 * What a request asks of a model and of the provider that serves it (docs/openai-compat.md). A
 * field the model cannot honour (per the catalog) or no endpoint's adapter can translate is
 * a 400 `unsupported_parameter` naming it, decided here before any hold or upstream call;
 * failover only ever sees endpoints that can serve every field. See docs/openai-compat.md.
 */
import type { Route } from "./catalog.js";
import type { Feature } from "../plugin/contract.js";
import { unsupported } from "../plugin/contract.js";
import type { ChatRequest } from "../core/chat-request.js";
import { requireChatModel } from "./model-kind.js";
import type { ModelCapabilities } from "../store/index.js";

export interface Need {
  feature: Feature;
  /** The request field, as OpenAI's `param` names it. */
  param: string;
  /** The model capability it also needs, when the model (not only the provider) decides. */
  model?: keyof ModelCapabilities;
}

const WHAT: Record<Feature, string> = {
  tools: "tool calling",
  tool_choice: "forcing a tool choice",
  parallel_tool_calls: "turning parallel tool calls off",
  json_object: "JSON mode",
  json_schema: "structured output (json_schema)",
  images: "image input",
  image_urls: "images by https URL (send a data: URL)",
  logprobs: "logprobs",
  reasoning_effort: "reasoning_effort",
  logit_bias: "logit_bias",
  service_tier: "service_tier",
  store: "store: true",
  prediction: "predicted outputs",
  web_search: "web search",
  verbosity: "verbosity",
};

/** The features a request uses. Fields that change nothing when absent upstream (`user`, `metadata`, `store: false`) need none. */
export function needsOf(req: ChatRequest): Need[] {
  const needs: Need[] = [];
  if (req.tools?.length) needs.push({ feature: "tools", param: "tools", model: "tools" });
  if (req.tools?.length && (req.tool_choice === "required" || typeof req.tool_choice === "object"))
    needs.push({ feature: "tool_choice", param: "tool_choice" });
  if (req.tools?.length && req.parallel_tool_calls === false) needs.push({ feature: "parallel_tool_calls", param: "parallel_tool_calls" });
  const format = req.response_format?.type;
  if (format === "json_object" || format === "json_schema") needs.push({ feature: format, param: "response_format", model: "structured_output" });
  imageNeeds(req, needs);
  if (req.logprobs) needs.push({ feature: "logprobs", param: "logprobs" });
  if (req.reasoning_effort) needs.push({ feature: "reasoning_effort", param: "reasoning_effort", model: "reasoning" });
  if (req.logit_bias && Object.keys(req.logit_bias).length) needs.push({ feature: "logit_bias", param: "logit_bias" });
  if (req.service_tier) needs.push({ feature: "service_tier", param: "service_tier" });
  if (req.store) needs.push({ feature: "store", param: "store" });
  if (req.prediction) needs.push({ feature: "prediction", param: "prediction" });
  if (req.verbosity) needs.push({ feature: "verbosity", param: "verbosity" });
  if (req.web_search_options) needs.push({ feature: "web_search", param: "web_search_options", model: "web_search" });
  return needs;
}

function imageNeeds(req: ChatRequest, needs: Need[]): void {
  let image: string | undefined;
  let url: string | undefined;
  req.messages.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((p, j) => {
      if (p.type !== "image_url") return;
      image ??= `messages.${i}.content.${j}`;
      if (!p.image_url.url.startsWith("data:")) url ??= `messages.${i}.content.${j}.image_url.url`;
    });
  });
  if (image) needs.push({ feature: "images", param: image, model: "images" });
  if (url) needs.push({ feature: "image_urls", param: url });
}

/** The route narrowed to endpoints that can serve every need; a 400 naming the first field none can. */
export function narrowRoute(route: Route, needs: Need[]): Route {
  requireChatModel(route.model); // an embedding model on a chat route: 400 unsupported_model
  if (needs.length === 0) return route;
  const caps = route.model.capabilities;
  for (const n of needs) {
    if (n.model && caps?.[n.model] === false) throw unsupported(n.param, `the model '${route.model.id}' does not support ${WHAT[n.feature]}.`);
  }
  const endpoints = route.endpoints.filter((e) => needs.every((n) => e.instance.plugin.features?.includes(n.feature)));
  if (endpoints.length) return endpoints.length === route.endpoints.length ? route : { ...route, endpoints };
  const missing = needs.find((n) => !route.endpoints.some((e) => e.instance.plugin.features?.includes(n.feature))) ?? needs[0]!; // each is served somewhere, but no endpoint serves them all
  const providers = [...new Set(route.endpoints.map((e) => e.instance.plugin.name))].join(", ");
  throw unsupported(
    missing.param,
    `${WHAT[missing.feature]} is not supported for '${route.model.id}' by ${providers} together with the other fields of this request.`,
  );
}
