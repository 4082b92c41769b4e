/**
 * OpenAI Chat Completions wire fixtures, as the API reference shows them: a chat.completion
 * object, and chat.completion.chunk events with a trailing usage chunk (include_usage).
 */
import type { Recorded, Reply } from "./fake-upstream.js";
import type { Call, Finish, ProviderFixture, SeenRequest, Tokens } from "./conformance.js";

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export function completion(text: string | null, usage: WireUsage = { prompt_tokens: 12, completion_tokens: 5 }, extra: Record<string, unknown> = {}): Reply {
  return {
    json: {
      id: "chatcmpl-upstream1",
      object: "chat.completion",
      created: 1_741_569_952,
      model: "gpt-4o-mini-2024-07-18",
      system_fingerprint: "fp_44709d6fcb",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: text, refusal: null, annotations: [], ...extra },
          logprobs: null,
          finish_reason: extra.tool_calls ? "tool_calls" : "stop",
        },
      ],
      usage: {
        ...usage,
        total_tokens: usage.prompt_tokens + usage.completion_tokens,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      service_tier: "default",
    },
  };
}

const chunk = (choices: unknown[], usage: unknown = null) => ({
  id: "chatcmpl-upstream2",
  object: "chat.completion.chunk",
  created: 1_741_569_952,
  model: "gpt-4o-mini-2024-07-18",
  system_fingerprint: "fp_44709d6fcb",
  choices,
  usage,
});

/** The exact event sequence: role chunk, content chunks, finish chunk, usage chunk, [DONE]. */
export function stream(
  pieces: string[],
  usage: WireUsage = { prompt_tokens: 12, completion_tokens: 5 },
  opts: { finish?: string; cut?: boolean; delayMs?: number; noUsage?: boolean } = {},
): Reply {
  const events = [
    chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }]),
    ...pieces.map((p) => chunk([{ index: 0, delta: { content: p }, logprobs: null, finish_reason: null }])),
  ];
  if (!opts.cut) {
    events.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: opts.finish ?? "stop" }]));
    if (!opts.noUsage) events.push(chunk([], { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }));
  }
  return { sse: events.map((data) => ({ data })), cut: opts.cut, delayMs: opts.delayMs };
}

export function error(status: number, message = "upstream says no", headers: Record<string, string> = {}): Reply {
  return { status, headers, json: { error: { message, type: status === 429 ? "requests" : "invalid_request_error", param: null, code: null } } };
}

// ---- the conformance fixture shared by every OpenAI-format provider -------------------

const wire = (u: Tokens): WireUsage => ({ prompt_tokens: u.prompt, completion_tokens: u.completion });

function toolCallChunks(call: Call, u: Tokens): Reply {
  const mid = Math.floor(call.arguments.length / 2);
  const c = (choices: unknown[], usage: unknown = null) => ({ id: "chatcmpl-t", object: "chat.completion.chunk", created: 1, model: "m", choices, usage });
  const events = [
    c([
      {
        index: 0,
        delta: { role: "assistant", content: null, tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] },
        finish_reason: null,
      },
    ]),
    c([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: call.arguments.slice(0, mid) } }] }, finish_reason: null }]),
    c([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: call.arguments.slice(mid) } }] }, finish_reason: null }]),
    c([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
    c([], { ...wire(u), total_tokens: u.prompt + u.completion }),
  ];
  return { sse: events.map((data) => ({ data })) };
}

function seenOpenAI(req: Recorded, pathPrefix: string): SeenRequest {
  const b = req.body as Record<string, any>;
  const messages = (b.messages as Array<Record<string, any>>)
    .filter((m) => m.role !== "system")
    .map((m) => {
      if (m.role === "tool") return { role: "tool" as const, toolResult: { id: m.tool_call_id, text: m.content } };
      const out: SeenRequest["messages"][number] = { role: m.role };
      if (m.content != null) out.text = m.content;
      if (m.tool_calls) out.toolCalls = m.tool_calls.map((t: any) => ({ id: t.id, name: t.function.name, arguments: t.function.arguments }));
      return out;
    });
  const system = (b.messages as Array<Record<string, any>>)
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");
  return {
    path: req.path.slice(pathPrefix.length),
    auth: String(req.headers.authorization ?? "").replace(/^Bearer /, "") || undefined,
    model: b.model,
    system: system || null,
    messages,
    stop: b.stop === undefined ? undefined : [b.stop].flat(),
    maxTokens: b.max_tokens ?? b.max_completion_tokens,
    temperature: b.temperature,
    stream: b.stream === true && b.stream_options?.include_usage === true,
  };
}

/** For `openai`, `openai-compatible` and every preset on the shared base. */
export function openaiFormatFixture(
  plugin: string,
  opts: { basePath?: string; upstreamModel?: string; extra?: Record<string, unknown> } = {},
): ProviderFixture {
  const basePath = opts.basePath ?? "/v1";
  return {
    plugin,
    provider: (url, apiKey) => ({ plugin, baseUrl: `${url}${basePath}`, apiKey, ...opts.extra }),
    upstreamModel: opts.upstreamModel ?? "upstream-model-1",
    text: (text, u, finish: Finish = "stop") => {
      const r = completion(text, wire(u)) as { json: any };
      r.json.choices[0].finish_reason = finish;
      return r;
    },
    stream: (pieces, u, finish = "stop") => stream(pieces, wire(u), { finish }),
    toolCall: (call, u) =>
      completion(null, wire(u), { tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }] }),
    streamToolCall: toolCallChunks,
    error: (status) => error(status, "openai-format-error-marker-7c1"),
    errorMarker: "openai-format-error-marker-7c1",
    seen: (req) => seenOpenAI(req, basePath),
  };
}
