/**
 * The outgoing OpenAI-format body. OpenAI's own API takes the superset as it is
 * (https://platform.openai.com/docs/api-reference/chat/create); an OpenAI-format provider
 * knows a subset of it, described by its `features` (what it translates) and its `Dialect`
 * (how its wire differs where no feature is at stake). A superset field whose feature the
 * provider lacks is left out only when its value changes nothing (`logprobs: false`,
 * `store: false`): any value that would change the answer was refused with a 400 by the core
 * before we get here (src/catalog/capabilities.ts).
 */
import { type CallContext, type ChatMessage, type ChatRequest, type ContentPart, type Feature, textOf, unsupported } from "../../src/plugin/contract.js";

/** Superset fields that never change the answer: sent where the provider has them, else left out. */
type PassiveField = "user" | "metadata" | "prompt_cache_key" | "safety_identifier" | "modalities";

export interface Dialect {
  /** `keep`: the API has the `developer` role; `system`: it is sent as a system message. */
  developer: "keep" | "system";
  /**
   * The output limit's name: OpenAI's reasoning models take only `max_completion_tokens`;
   * older APIs know only `max_tokens`; `as_sent` forwards whichever the client used.
   */
  outputLimit: "max_completion_tokens" | "max_tokens" | "as_sent";
  /** Roles whose content the API takes only as a string (text parts are joined). */
  textOnly: readonly ChatMessage["role"][];
  passive: readonly PassiveField[];
  /**
   * What OpenAI clients echo back on assistant turns (`refusal`, `annotations`, `audio: null`):
   * `keep` for OpenAI; `strip` for APIs that reject unknown message keys (a refusal's text
   * becomes the turn's content, since that is what the assistant said).
   */
  echoes: "keep" | "strip";
}

export const OPENAI_DIALECT: Dialect = {
  developer: "keep",
  outputLimit: "as_sent",
  textOnly: [],
  passive: ["user", "metadata", "prompt_cache_key", "safety_identifier", "modalities"],
  echoes: "keep",
};

/** What most OpenAI-format providers speak: `system` instructions, `max_tokens`, no echoed OpenAI-only keys. */
export const PLAIN_DIALECT: Dialect = { developer: "system", outputLimit: "max_tokens", textOnly: [], passive: [], echoes: "strip" };

/** Which feature a superset field belongs to: it is sent only where that feature is declared. */
const FIELD_FEATURE: Partial<Record<keyof ChatRequest, Feature>> = {
  tools: "tools",
  tool_choice: "tools",
  parallel_tool_calls: "parallel_tool_calls",
  logprobs: "logprobs",
  top_logprobs: "logprobs",
  logit_bias: "logit_bias",
  reasoning_effort: "reasoning_effort",
  service_tier: "service_tier",
  store: "store",
  prediction: "prediction",
  web_search_options: "web_search",
  verbosity: "verbosity",
};

const PASSIVE: readonly PassiveField[] = OPENAI_DIALECT.passive;

export function toOpenAIBody(req: ChatRequest, ctx: CallContext, features: readonly Feature[], dialect: Dialect = OPENAI_DIALECT): Record<string, unknown> {
  const { stream_options: _ignored, ...rest } = req;
  const body: Record<string, unknown> = { ...rest, model: ctx.model };
  dropUnsupported(body, features, dialect);
  body.messages = req.messages.map((m) => toWireMessage(m, dialect));
  renameOutputLimit(body, dialect);
  if (ctx.stream) {
    body.stream = true;
    // Always ask for usage: billing must not depend on what the client asked for.
    body.stream_options = { include_usage: true };
  } else delete body.stream;
  return body;
}

function dropUnsupported(body: Record<string, unknown>, features: readonly Feature[], dialect: Dialect): void {
  for (const [field, feature] of Object.entries(FIELD_FEATURE)) if (!features.includes(feature)) delete body[field];
  for (const field of PASSIVE) if (!dialect.passive.includes(field)) delete body[field];
  // OpenAI rejects tool_choice and parallel_tool_calls without tools ("only allowed when tools are specified").
  if (!Array.isArray(body.tools) || body.tools.length === 0) {
    delete body.tools;
    delete body.tool_choice;
    delete body.parallel_tool_calls;
  }
  const format = (body.response_format as { type?: string } | undefined)?.type;
  const formats = features.filter((f) => f === "json_object" || f === "json_schema");
  if (format === "text" && formats.length === 0) delete body.response_format;
}

function renameOutputLimit(body: Record<string, unknown>, dialect: Dialect): void {
  const limit = body.max_tokens ?? body.max_completion_tokens;
  if (dialect.outputLimit === "as_sent" || limit === undefined) return;
  delete body.max_tokens;
  delete body.max_completion_tokens;
  body[dialect.outputLimit] = limit;
}

function toWireMessage(m: ChatMessage, dialect: Dialect): ChatMessage {
  let out: ChatMessage = withoutCacheControl(m.role === "developer" && dialect.developer === "system" ? { ...m, role: "system" } : m);
  if (dialect.echoes === "strip") out = withoutEchoes(out);
  if (!dialect.textOnly.includes(m.role) || !Array.isArray(out.content)) return out;
  if (out.content.some((p) => p.type !== "text")) throw unsupported("messages[].content", `this provider takes only text in '${m.role}' messages`);
  return { ...out, content: textOf(out.content) };
}

/** Anthropic's `cache_control` marks (docs/openai-compat.md): OpenAI-format APIs have none, so they are dropped. */
function withoutCacheControl(m: ChatMessage): ChatMessage {
  const parts = Array.isArray(m.content) && m.content.some((p) => p.cache_control !== undefined);
  const calls = m.tool_calls?.some((c) => c.cache_control !== undefined);
  if (m.cache_control === undefined && !parts && !calls) return m;
  const { cache_control: _c, ...out } = m;
  if (parts && Array.isArray(out.content)) out.content = out.content.map(({ cache_control: _p, ...part }) => part as ContentPart);
  if (calls) out.tool_calls = out.tool_calls!.map(({ cache_control: _t, ...call }) => call);
  return out;
}

function withoutEchoes({ refusal, annotations: _a, audio: _b, ...m }: ChatMessage): ChatMessage {
  const said = m.content === null || m.content === undefined || m.content === "";
  return refusal && said ? { ...m, content: refusal } : m;
}
