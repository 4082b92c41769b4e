/**
 * Anthropic Messages API wire fixtures, shaped as the published references show them:
 * - message object and error shape: https://docs.anthropic.com/en/api/messages,
 *   https://docs.anthropic.com/en/api/errors ({"type":"error","error":{type,message},"request_id"})
 * - the streaming event sequence: https://docs.anthropic.com/en/docs/build-with-claude/streaming
 *   (message_start, content_block_start, ping, content_block_delta..., content_block_stop,
 *   message_delta with cumulative usage, message_stop; named events, no [DONE])
 * - models list: https://docs.anthropic.com/en/api/models-list
 */
import type { Call, Finish, ProviderFixture, SeenRequest, Tokens } from "../helpers/conformance.js";
import type { Recorded, Reply, SseEvent } from "../helpers/fake-upstream.js";

export const MODEL = "claude-sonnet-4-5-20250929";

export interface WireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

const STOP: Record<Finish, string> = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use" };

/**
 * A neutral prompt count as Anthropic reports it: `input_tokens` excludes cache reads and
 * writes, so part of the prompt is put in each bucket (the adapter must add them back).
 */
export function wireUsage(u: Tokens): WireUsage {
  const read = Math.floor(u.prompt / 5);
  const created = Math.floor(u.prompt / 10);
  return { input_tokens: u.prompt - read - created, cache_creation_input_tokens: created, cache_read_input_tokens: read, output_tokens: u.completion };
}

export function message(content: unknown[], usage: WireUsage, stopReason: string | null = "end_turn"): Reply {
  return {
    json: {
      id: "msg_013Zva2CMHLNnXjNJJKqJ2EF",
      type: "message",
      role: "assistant",
      model: MODEL,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { ...usage, service_tier: "standard" },
    },
  };
}

export const textBlock = (text: string) => ({ type: "text", text, citations: null });
export const toolUseBlock = (c: Call) => ({ type: "tool_use", id: c.id, name: c.name, input: JSON.parse(c.arguments) as unknown });

const ev = (type: string, data: Record<string, unknown> = {}): SseEvent => ({ event: type, data: { type, ...data } });

export function messageStart(usage: Omit<WireUsage, "output_tokens">): SseEvent {
  return ev("message_start", {
    message: {
      id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
      type: "message",
      role: "assistant",
      content: [],
      model: MODEL,
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
}

export function messageEnd(stopReason: string, usage: Partial<WireUsage>): SseEvent[] {
  return [ev("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage }), ev("message_stop")];
}

export const textBlockEvents = (index: number, pieces: string[]): SseEvent[] => [
  ev("content_block_start", { index, content_block: { type: "text", text: "" } }),
  ...pieces.map((text) => ev("content_block_delta", { index, delta: { type: "text_delta", text } })),
  ev("content_block_stop", { index }),
];

/** As the docs show: the block opens with `input: {}`, then an empty partial_json, then fragments. */
export function toolBlockEvents(index: number, call: Call): SseEvent[] {
  const mid = Math.floor(call.arguments.length / 2);
  const fragments = ["", call.arguments.slice(0, mid), call.arguments.slice(mid)];
  return [
    ev("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }),
    ...fragments.map((partial_json) => ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } })),
    ev("content_block_stop", { index }),
  ];
}

export const ping: SseEvent = ev("ping");

function streamOf(blocks: SseEvent[], u: Tokens, stopReason: string): Reply {
  const { output_tokens, ...prompt } = wireUsage(u);
  // message_delta's usage is cumulative: it repeats the final output count.
  const events = [messageStart(prompt), ping, ...blocks, ...messageEnd(stopReason, { output_tokens })];
  return { sse: events, done: false };
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

export function errorReply(status: number, message: string, extra: Record<string, unknown> = {}): Reply {
  return {
    status,
    json: { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message, ...extra }, request_id: "req_011CSHoEeqs5C35K2UUqR7Fy" },
  };
}

/** The mid-stream error event (an overload after the 200 went out). */
export const streamError: SseEvent = { event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } };

// ---- reading what the fake received -------------------------------------------------

interface WireBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string;
}
interface WireTurn {
  role: "user" | "assistant";
  content: string | WireBlock[];
}

/** One Anthropic turn as neutral messages: tool results first (each its own), then the text. */
function neutral(turn: WireTurn): SeenRequest["messages"] {
  const blocks: WireBlock[] = typeof turn.content === "string" ? [{ type: "text", text: turn.content }] : turn.content;
  const text = blocks
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");
  if (turn.role === "user") {
    const results = blocks
      .filter((b) => b.type === "tool_result")
      .map((b) => ({ role: "tool" as const, toolResult: { id: b.tool_use_id!, text: b.content ?? "" } }));
    return text ? [...results, { role: "user", text }] : results;
  }
  const calls = blocks.filter((b) => b.type === "tool_use").map((b) => ({ id: b.id!, name: b.name!, arguments: JSON.stringify(b.input) }));
  return [{ role: "assistant", ...(text ? { text } : {}), ...(calls.length ? { toolCalls: calls } : {}) }];
}

export function seenAnthropic(req: Recorded): SeenRequest {
  const b = req.body as Record<string, any>;
  const system = typeof b.system === "string" ? b.system : Array.isArray(b.system) ? b.system.map((s: WireBlock) => s.text).join("\n") : null;
  return {
    path: req.path,
    auth: typeof req.headers["x-api-key"] === "string" ? req.headers["x-api-key"] : undefined,
    model: b.model,
    system,
    messages: (b.messages as WireTurn[]).flatMap(neutral),
    stop: b.stop_sequences,
    maxTokens: b.max_tokens,
    temperature: b.temperature,
    stream: b.stream === true,
  };
}

export const ERROR_MARKER = "anthropic-error-marker-5d2";

export const anthropicFixture: ProviderFixture = {
  plugin: "anthropic",
  provider: (url, apiKey) => ({ plugin: "anthropic", baseUrl: url, apiKey }),
  upstreamModel: MODEL,
  text: (text, u, finish = "stop") => message([textBlock(text)], wireUsage(u), STOP[finish]),
  stream: (pieces, u, finish = "stop") => streamOf(textBlockEvents(0, pieces), u, STOP[finish]),
  toolCall: (call, u) => message([toolUseBlock(call)], wireUsage(u), "tool_use"),
  streamToolCall: (call, u) => streamOf(toolBlockEvents(0, call), u, "tool_use"),
  error: (status) => errorReply(status, ERROR_MARKER),
  errorMarker: ERROR_MARKER,
  seen: seenAnthropic,
};

// ---- extended thinking and tools without input (anthropic-tools.test.ts) -------------

/**
 * A thinking block as the extended-thinking docs show it streamed
 * (https://docs.claude.com/en/docs/build-with-claude/extended-thinking#streaming-thinking):
 * thinking_delta fragments, then one signature_delta, then content_block_stop.
 */
export const thinkingBlockEvents = (index: number, pieces: string[]): SseEvent[] => [
  ev("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }),
  ...pieces.map((thinking) => ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking } })),
  ev("content_block_delta", { index, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" } }),
  ev("content_block_stop", { index }),
];

/** A tool called without arguments: the block opens with `input: {}` and only an empty partial_json follows. */
export const emptyToolBlockEvents = (index: number, id: string, name: string): SseEvent[] => [
  ev("content_block_start", { index, content_block: { type: "tool_use", id, name, input: {} } }),
  ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }),
  ev("content_block_stop", { index }),
];

export const thinkingBlock = (thinking: string) => ({ type: "thinking", thinking, signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" });
