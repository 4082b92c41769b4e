/**
 * Gemini API wire fixtures, mirroring the published shapes:
 * - GenerateContentResponse: https://ai.google.dev/api/generate-content#generatecontentresponse
 *   (bodies as recorded from generativelanguage.googleapis.com in google/adk-go testdata,
 *   e.g. agent/testdata/TestLLMAgentFunctionTool.httprr: candidates[].content.parts,
 *   finishReason "STOP" even for function calls, usageMetadata, modelVersion, responseId);
 * - streamGenerateContent?alt=sse: one GenerateContentResponse per `data:` event, usageMetadata
 *   on every chunk with running totals, finishReason on the last, and no [DONE]
 *   (adk-go agent/llmagent/testdata/TestLLMAgentStreamingModeSSE.httprr);
 * - errors: google.rpc.Status {error: {code, message, status, details}}
 *   (https://ai.google.dev/gemini-api/docs/generate-content/api-errors).
 */
import type { Call, Finish, ProviderFixture, SeenRequest, Tokens } from "../helpers/conformance.js";
import type { Recorded, Reply } from "../helpers/fake-upstream.js";

export const MODEL_VERSION = "gemini-2.5-flash";
const RESPONSE_ID = "WEXbaMnpF7iPjMcP27mckQE";

export interface WireUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  toolUsePromptTokenCount?: number;
}

/** usageMetadata as Gemini sends it; totalTokenCount is the sum of the disjoint buckets. */
export function usageMetadata(u: WireUsage): Record<string, unknown> {
  const total = (u.promptTokenCount ?? 0) + (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0) + (u.toolUsePromptTokenCount ?? 0);
  return {
    ...u,
    totalTokenCount: total,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: u.promptTokenCount ?? 0 }],
    ...(u.candidatesTokenCount ? { candidatesTokensDetails: [{ modality: "TEXT", tokenCount: u.candidatesTokenCount }] } : {}),
  };
}

const wire = (u: Tokens): WireUsage => ({ promptTokenCount: u.prompt, candidatesTokenCount: u.completion });

export const finishOf = (f: Finish): string => (f === "length" ? "MAX_TOKENS" : "STOP");

/** One GenerateContentResponse. */
export function response(candidates: unknown[], usage?: WireUsage): Record<string, unknown> {
  return { candidates, ...(usage ? { usageMetadata: usageMetadata(usage) } : {}), modelVersion: MODEL_VERSION, responseId: RESPONSE_ID };
}

export function candidate(parts: unknown[], finishReason?: string, index = 0): Record<string, unknown> {
  return { content: { parts, role: "model" }, ...(finishReason ? { finishReason } : {}), index };
}

export const functionCallPart = (c: { id?: string; name: string; arguments: string }) => ({
  functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: JSON.parse(c.arguments) },
});

/** An SSE body of GenerateContentResponse chunks; Gemini ends the stream without [DONE]. */
export const sse = (chunks: unknown[], extra: { delayMs?: number; cut?: boolean } = {}): Reply => ({
  sse: chunks.map((data) => ({ data })),
  done: false,
  ...extra,
});

function textStream(pieces: string[], u: Tokens, finish: Finish): Reply {
  const chunks = pieces.map((text, i) => {
    const last = i === pieces.length - 1;
    // Running totals: candidates grow chunk by chunk, the last chunk carries the final count.
    const so = last ? u.completion : Math.floor((u.completion * (i + 1)) / pieces.length);
    return response([candidate([{ text }], last ? finishOf(finish) : undefined)], { promptTokenCount: u.prompt, candidatesTokenCount: so });
  });
  return sse(chunks);
}

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};
export const ERROR_MARKER = "gemini-error-marker-5d2";

export function error(status: number, details: unknown[] = [], message = `upstream says no (${ERROR_MARKER})`): Reply {
  return { status, json: { error: { code: status, message, status: STATUS[status] ?? "UNKNOWN", ...(details.length ? { details } : {}) } } };
}

/** The 400 Gemini answers for a bad key, as reported verbatim in continuedev/continue#8516. */
export function keyInvalid(): Reply {
  return error(
    400,
    [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "API_KEY_INVALID",
        domain: "googleapis.com",
        metadata: { service: "generativelanguage.googleapis.com" },
      },
      {
        "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
        locale: "en-US",
        message: `API key not valid. Please pass a valid API key. ${ERROR_MARKER}`,
      },
    ],
    `API key not valid. Please pass a valid API key. ${ERROR_MARKER}`,
  );
}

type Message = SeenRequest["messages"][number];

function messagesOf(contents: Array<{ role: string; parts: Array<Record<string, any>> }>): Message[] {
  return contents.flatMap((c) => {
    const out: Message[] = [];
    const text = c.parts
      .filter((p) => typeof p.text === "string")
      .map((p) => p.text)
      .join("");
    const calls = c.parts
      .filter((p) => p.functionCall)
      .map((p) => ({ id: p.functionCall.id, name: p.functionCall.name, arguments: JSON.stringify(p.functionCall.args) }));
    for (const p of c.parts.filter((p) => p.functionResponse)) {
      const r = p.functionResponse.response;
      const keys = Object.keys(r);
      out.push({
        role: "tool",
        toolResult: {
          id: p.functionResponse.id,
          text: keys.length === 1 && keys[0] === "content" && typeof r.content === "string" ? r.content : JSON.stringify(r),
        },
      });
    }
    const role = c.role === "model" ? "assistant" : "user";
    const m: Message = { role };
    if (text) m.text = text;
    if (calls.length) m.toolCalls = calls;
    if (m.text !== undefined || m.toolCalls) out.push(m);
    return out;
  });
}

/** Reads what the fake received, in Gemini's own terms. */
export function seenGemini(req: Recorded): SeenRequest {
  const b = req.body as Record<string, any>;
  const config = (b.generationConfig ?? {}) as Record<string, any>;
  const system = ((b.systemInstruction?.parts ?? []) as Array<{ text: string }>).map((p) => p.text).join("\n");
  return {
    path: req.path,
    auth: req.headers["x-goog-api-key"] as string | undefined,
    model: /\/models\/([^/:]+):/.exec(req.path)?.[1],
    system: system || null,
    messages: messagesOf(b.contents ?? []),
    stop: config.stopSequences,
    maxTokens: config.maxOutputTokens,
    temperature: config.temperature,
    stream: /:streamGenerateContent\?alt=sse$/.test(req.path),
  };
}

export const googleFixture: ProviderFixture = {
  plugin: "google",
  provider: (url, apiKey) => ({ plugin: "google", baseUrl: url, apiKey }),
  upstreamModel: "gemini-2.5-flash",
  text: (text, u, finish = "stop") => ({ json: response([candidate([{ text }], finishOf(finish))], wire(u)) }),
  stream: (pieces, u, finish = "stop") => textStream(pieces, u, finish),
  toolCall: (call: Call, u) => ({ json: response([candidate([functionCallPart(call)], "STOP")], wire(u)) }),
  // A functionCall part arrives whole, with the finish reason, in one chunk.
  streamToolCall: (call: Call, u) => sse([response([candidate([functionCallPart(call)], "STOP")], wire(u))]),
  error: (status) => error(status),
  errorMarker: ERROR_MARKER,
  seen: seenGemini,
};
