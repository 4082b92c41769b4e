/**
 * A Responses request as the gateway's one internal request form, the chat superset
 * (docs/responses.md: one pipeline, the same adapters). Items become messages in order:
 * `instructions` first as a system message (never carried over from a previous response,
 * per OpenAI's reference), then the stored chain, then this request's input; a
 * `function_call` joins the assistant turn before it as a tool call with `call_id` as its
 * id (ids round-trip unchanged, docs/openai-compat.md), a `function_call_output` is a tool message.
 */
import { GatewayError } from "../../core/errors.js";
import { unsupported } from "../../plugin/contract.js";
import type { ChatMessage, ChatRequest, ContentPart as ChatPart, ResponseFormat, ToolCall } from "../../core/chat-request.js";
import type { ContentPart, InputItem, ResponsesRequest } from "./schema.js";
import { chatTools, flatName, type ChatTools } from "./tools.js";

/** This request's input as items: a string is one user message. */
export function inputItems(req: ResponsesRequest): InputItem[] {
  if (req.input === undefined) return [];
  return typeof req.input === "string" ? [{ type: "message", role: "user", content: req.input }] : req.input;
}

/** The request in chat terms, and what its tools are in the client's terms (the calls are mapped back through it). */
export interface Translated {
  chat: ChatRequest;
  tools: ChatTools;
}

/** `history`: the stored chain's items (previous_response_id), oldest first; `input`: this request's. */
export function toChatRequest(req: ResponsesRequest, history: InputItem[], input: InputItem[]): Translated {
  const messages: ChatMessage[] = [];
  if (req.instructions) messages.push({ role: "system", content: req.instructions });
  for (const item of history) addItem(messages, item, "previous_response_id");
  input.forEach((item, i) => addItem(messages, item, `input.${i}`));
  if (messages.length === 0) throw new GatewayError(400, "invalid_request_error", null, "input: Required (a string or at least one item)", { param: "input" });
  const chat: ChatRequest = { model: req.model, messages };
  if (req.stream) chat.stream = true;
  if (req.temperature !== undefined) chat.temperature = req.temperature;
  if (req.top_p !== undefined) chat.top_p = req.top_p;
  if (req.max_output_tokens !== undefined) chat.max_completion_tokens = req.max_output_tokens;
  const tools = chatTools(req.tools ?? []);
  if (tools.tools.length) chat.tools = tools.tools;
  if (req.tool_choice !== undefined)
    chat.tool_choice = typeof req.tool_choice === "string" ? req.tool_choice : { type: "function", function: { name: req.tool_choice.name } };
  if (req.parallel_tool_calls !== undefined) chat.parallel_tool_calls = req.parallel_tool_calls;
  const format = responseFormat(req);
  if (format) chat.response_format = format;
  if (req.text?.verbosity) chat.verbosity = req.text.verbosity;
  if (req.reasoning?.effort) chat.reasoning_effort = req.reasoning.effort;
  if (req.top_logprobs !== undefined || req.include?.includes("message.output_text.logprobs")) {
    chat.logprobs = true;
    if (req.top_logprobs !== undefined) chat.top_logprobs = req.top_logprobs;
  }
  if (req.metadata) chat.metadata = req.metadata;
  if (req.user !== undefined) chat.user = req.user;
  if (req.prompt_cache_key !== undefined) chat.prompt_cache_key = req.prompt_cache_key;
  if (req.safety_identifier !== undefined) chat.safety_identifier = req.safety_identifier;
  if (req.service_tier !== undefined) chat.service_tier = req.service_tier;
  return { chat, tools };
}

function responseFormat(req: ResponsesRequest): ResponseFormat | undefined {
  const f = req.text?.format;
  if (!f || f.type !== "json_schema") return f;
  const { type, ...json_schema } = f;
  return { type, json_schema };
}

function addItem(messages: ChatMessage[], item: InputItem, path: string): void {
  switch (item.type) {
    case "reasoning":
      return;
    default:
      return; // an item only a native route has (a hosted tool's call), replayed from the stored chain
    case "function_call":
      return addCall(messages, { id: item.call_id, type: "function", function: { name: flatName(item.namespace, item.name), arguments: item.arguments } });
    case "custom_tool_call":
      return addCall(messages, { id: item.call_id, type: "function", function: { name: item.name, arguments: JSON.stringify({ input: item.input }) } });
    case "function_call_output":
    case "custom_tool_call_output":
      messages.push({ role: "tool", tool_call_id: item.call_id, content: contentOf(item.output, `${path}.output`, "tool") });
      return;
    case "message":
    case undefined:
      messages.push({ role: item.role, content: contentOf(item.content, `${path}.content`, item.role === "assistant" ? "assistant" : "other") });
  }
}

/** The calls of one model turn follow its text (if any) as separate items: one assistant message again. */
function addCall(messages: ChatMessage[], call: ToolCall): void {
  const last = messages.at(-1);
  if (last?.role === "assistant") (last.tool_calls ??= []).push(call);
  else messages.push({ role: "assistant", content: null, tool_calls: [call] });
}

/**
 * Parts as chat parts. Assistant turns and tool results that are all text become one string,
 * the form every adapter reads there; images stay parts (an assistant turn cannot hold one).
 */
function contentOf(content: string | ContentPart[], path: string, role: "assistant" | "tool" | "other"): string | ChatPart[] {
  if (typeof content === "string") return content;
  const parts = content.map((p, j) => chatPart(p, `${path}.${j}`));
  if (role === "other") return parts;
  let text = "";
  for (const p of parts) {
    if (p.type !== "text") {
      if (role === "assistant") throw unsupported(path, "an assistant turn holds text only.");
      return parts;
    }
    text += p.text;
  }
  return text;
}

function chatPart(p: ContentPart, path: string): ChatPart {
  switch (p.type) {
    case "input_text":
    case "output_text":
      return { type: "text", text: p.text };
    case "refusal":
      return { type: "text", text: p.refusal };
    case "input_file":
      throw unsupported(path, "input files are not supported by the gateway; send the text or an image.");
    case "input_image":
      if (!p.image_url) throw unsupported(`${path}.file_id`, "files by id are not supported by the gateway; send image_url (https or a data: URL).");
      return { type: "image_url", image_url: p.detail ? { url: p.image_url, detail: p.detail } : { url: p.image_url } };
  }
}

/** Chat field names as a Responses client knows them, for a 400 the pipeline raised in chat terms. */
const PARAMS: Record<string, string> = {
  response_format: "text.format",
  reasoning_effort: "reasoning.effort",
  verbosity: "text.verbosity",
  max_completion_tokens: "max_output_tokens",
  logprobs: "top_logprobs",
  top_logprobs: "top_logprobs",
};

function responsesParam(param: string): string {
  if (param.startsWith("messages")) return "input";
  return PARAMS[param] ?? param;
}

/** An error naming a chat field (capabilities narrowing, an adapter's refusal) renamed to the Responses field. */
export function inResponsesTerms(err: unknown): unknown {
  if (!(err instanceof GatewayError) || !err.param) return err;
  const param = responsesParam(err.param);
  if (param === err.param) return err;
  const message = err.message.startsWith(`${err.param}:`) ? `${param}:${err.message.slice(err.param.length + 1)}` : err.message;
  return new GatewayError(err.status, err.type, err.code, message, { headers: err.headers, param, cause: err.cause });
}
