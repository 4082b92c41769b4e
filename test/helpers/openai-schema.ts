/**
 * JSON Schemas of what OpenAI's chat API answers, checked on the JSON itself with ajv.
 *
 * Written from openai/openai-openapi `openapi.yaml` at commit
 * 578000861507cd19620e3f1092adf62303757c0a (spec 2.3.0): CreateChatCompletionResponse,
 * CreateChatCompletionStreamResponse, ChatCompletionResponseMessage,
 * ChatCompletionMessageToolCall, ChatCompletionMessageToolCallChunk,
 * ChatCompletionStreamResponseDelta, ChatCompletionTokenLogprob, CompletionUsage; their
 * `required` lists and enums are kept as published. Fields the spec gained later
 * (`message.annotations`, `message.audio`, `developer` in the delta role enum, the
 * `service_tier` values, `usage.*_details`, a nullable chunk `usage`, `moderation`) are
 * taken from openai-node 6.49's types, which Stainless generates from the current spec.
 * OpenAPI 3.0 `nullable: true` is written as a `null` type.
 *
 * One deliberate tightening: objects are closed (`additionalProperties: false`) over the
 * published properties, because docs/http.md lets answers carry only the listed fields.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

const str = { type: "string" } as const;
const int = { type: "integer" } as const;
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: "null" }] });
const closed = (properties: Record<string, unknown>, required: string[] = []) => ({ type: "object", properties, required, additionalProperties: false });

const FINISH = ["stop", "length", "tool_calls", "content_filter", "function_call"];

const topLogprob = closed({ token: str, logprob: { type: "number" }, bytes: nullable({ type: "array", items: int }) }, ["token", "logprob", "bytes"]);
const tokenLogprob = closed({ ...topLogprob.properties, top_logprobs: { type: "array", items: topLogprob } }, ["token", "logprob", "bytes", "top_logprobs"]);
/** choices[].logprobs (`chat_completion_response_logprobs`). */
const choiceLogprobs = nullable(
  closed(
    {
      content: nullable({ type: "array", items: tokenLogprob }),
      refusal: nullable({ type: "array", items: tokenLogprob }),
    },
    ["content", "refusal"],
  ),
);

/** CompletionUsage: the three counts required, the details optional. */
const usage = closed(
  {
    prompt_tokens: int,
    completion_tokens: int,
    total_tokens: int,
    prompt_tokens_details: closed({ cached_tokens: int, audio_tokens: int, cache_write_tokens: int }),
    completion_tokens_details: closed({ reasoning_tokens: int, audio_tokens: int, accepted_prediction_tokens: int, rejected_prediction_tokens: int }),
  },
  ["prompt_tokens", "completion_tokens", "total_tokens"],
);

const SERVICE_TIER = nullable({ type: "string", enum: ["auto", "default", "flex", "scale", "priority"] });
const envelope = { id: str, created: int, model: str, service_tier: SERVICE_TIER, system_fingerprint: str, moderation: nullable({ type: "object" }) };

/** ChatCompletionMessageToolCall (function tool calls: the only kind a gateway emits). */
const toolCall = closed(
  {
    id: str,
    type: { type: "string", enum: ["function"] },
    function: closed({ name: str, arguments: str }, ["name", "arguments"]),
  },
  ["id", "type", "function"],
);

/** ChatCompletionResponseMessage: role, content and refusal are required (both may be null). */
const responseMessage = closed(
  {
    role: { type: "string", enum: ["assistant"] },
    content: nullable(str),
    refusal: nullable(str),
    tool_calls: { type: "array", items: toolCall },
    annotations: {
      type: "array",
      items: closed(
        {
          type: { type: "string", enum: ["url_citation"] },
          url_citation: closed({ start_index: int, end_index: int, url: str, title: str }, ["start_index", "end_index", "url", "title"]),
        },
        ["type", "url_citation"],
      ),
    },
    audio: nullable(closed({ id: str, data: str, expires_at: int, transcript: str }, ["id", "data", "expires_at", "transcript"])),
    function_call: nullable(closed({ name: str, arguments: str }, ["name", "arguments"])),
  },
  ["role", "content", "refusal"],
);

/** CreateChatCompletionResponse. */
export const chatCompletionSchema = closed(
  {
    ...envelope,
    object: { type: "string", enum: ["chat.completion"] },
    choices: {
      type: "array",
      items: closed({ index: int, message: responseMessage, logprobs: choiceLogprobs, finish_reason: { type: "string", enum: FINISH } }, [
        "finish_reason",
        "index",
        "message",
        "logprobs",
      ]),
    },
    usage,
  },
  ["choices", "created", "id", "model", "object"],
);

/** ChatCompletionMessageToolCallChunk: only `index` is required. */
const toolCallChunk = closed(
  {
    index: int,
    id: str,
    type: { type: "string", enum: ["function"] },
    function: closed({ name: str, arguments: str }),
  },
  ["index"],
);

/** ChatCompletionStreamResponseDelta. */
const delta = closed({
  role: { type: "string", enum: ["developer", "system", "user", "assistant", "tool"] },
  content: nullable(str),
  refusal: nullable(str),
  tool_calls: { type: "array", items: toolCallChunk },
  function_call: closed({ name: str, arguments: str }),
});

/** CreateChatCompletionStreamResponse. */
export const chatCompletionChunkSchema = closed(
  {
    ...envelope,
    object: { type: "string", enum: ["chat.completion.chunk"] },
    choices: {
      type: "array",
      items: closed({ index: int, delta, logprobs: choiceLogprobs, finish_reason: nullable({ type: "string", enum: FINISH }) }, [
        "delta",
        "finish_reason",
        "index",
      ]),
    },
    usage: nullable(usage),
  },
  ["choices", "created", "id", "model", "object"],
);

/** The error object under `server.compat: openai` (docs/http.md and docs/openai-compat.md): five fields, `param` added. */
export const openaiErrorSchema = closed(
  {
    error: closed({ message: str, type: str, code: nullable(str), param: nullable(str), request_id: { type: "string", pattern: "^req_[0-9a-f]{32}$" } }, [
      "message",
      "type",
      "code",
      "param",
      "request_id",
    ]),
  },
  ["error"],
);

export type SchemaName = "chat.completion" | "chat.completion.chunk" | "error";

let compiled: Record<SchemaName, ValidateFunction> | undefined;

function validators(): Record<SchemaName, ValidateFunction> {
  if (compiled) return compiled;
  const ajv = new Ajv({ allErrors: true, strict: true });
  compiled = {
    "chat.completion": ajv.compile(chatCompletionSchema),
    "chat.completion.chunk": ajv.compile(chatCompletionChunkSchema),
    error: ajv.compile(openaiErrorSchema),
  };
  return compiled;
}

/** The violations of `value` against one schema, as readable lines (empty when valid). */
export function validate(name: SchemaName, value: unknown): string[] {
  const check = validators()[name];
  if (check(value)) return [];
  return (check.errors ?? []).map(
    (e: ErrorObject) =>
      `${name}${e.instancePath || "/"} ${e.message}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
  );
}

/**
 * Checks every answer of /v1/chat/completions that passes through its `fetch`: a 200 JSON
 * body as a chat.completion, each `data:` event of a 200 event-stream as a chunk (not
 * `[DONE]`, not an `{"error":...}` event), any other JSON body as the error object. Streams
 * are read through a pass-through rather than a clone, so a client that stops reading
 * still closes the connection (the gateway's abort handling sees what it would see anyway).
 */
export class SchemaWatch {
  private errors: string[] = [];
  private readonly pending = new Set<Promise<void>>();

  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const res = await globalThis.fetch(input, init);
    const path = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url).pathname;
    return path.endsWith("/chat/completions") ? this.watch(res, `${init?.method ?? "GET"} ${path} ${res.status}`) : res;
  };

  /** The violations seen since the last call, once the bodies still being read are in (at most ~2 s). */
  async take(): Promise<string[]> {
    const timeout = new Promise((r) => setTimeout(r, 2000).unref());
    await Promise.race([Promise.allSettled([...this.pending]), timeout]);
    const out = this.errors;
    this.errors = [];
    return out;
  }

  private watch(res: Response, label: string): Response {
    const type = res.headers.get("content-type") ?? "";
    if (res.status === 200 && type.includes("text/event-stream") && res.body) return this.watchStream(res, label);
    const done = res
      .clone()
      .text()
      .then(
        (text) => this.checkBody(res.status, type, text, label),
        () => {
          /* the client cancelled it */
        },
      );
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
    return res;
  }

  private checkBody(status: number, type: string, text: string, label: string): void {
    if (!type.includes("application/json")) return this.add(label, [`content-type ${type || "(none)"} is neither JSON nor an event stream`]);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return this.add(label, [`body is not JSON: ${text.slice(0, 80)}`]);
    }
    this.add(label, validate(status === 200 ? "chat.completion" : "error", body), body);
  }

  private watchStream(res: Response, label: string): Response {
    const decoder = new TextDecoder();
    const firstFragments = new Set<string>();
    let buffer = "";
    const events = (final: boolean) => {
      const parts = buffer.split(/\r?\n\r?\n/);
      buffer = final ? "" : (parts.pop() ?? "");
      for (const event of parts) this.checkEvent(event, label, firstFragments);
    };
    const body = res.body!.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          buffer += decoder.decode(chunk, { stream: true });
          events(false);
          controller.enqueue(chunk);
        },
        flush: () => events(true),
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  }

  private checkEvent(event: string, label: string, firstFragments: Set<string>): void {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data || data === "[DONE]") return;
    let chunk: any;
    try {
      chunk = JSON.parse(data);
    } catch {
      return this.add(label, [`event is not JSON: ${data.slice(0, 80)}`]);
    }
    // The mid-stream error event (docs/http.md) is the error object, `param` included.
    if (chunk && typeof chunk === "object" && "error" in chunk) return this.add(label, validate("error", chunk), chunk);
    this.add(label, [...validate("chat.completion.chunk", chunk), ...firstFragmentRule(chunk, firstFragments)], chunk);
  }

  private add(label: string, problems: string[], body?: unknown): void {
    if (problems.length) this.errors.push(`${label}: ${problems.join("; ")}${body === undefined ? "" : ` in ${JSON.stringify(body).slice(0, 400)}`}`);
  }
}

/** The first fragment of each streamed tool call carries `id`, `type` and `function.name`. */
function firstFragmentRule(chunk: any, seen: Set<string>): string[] {
  const out: string[] = [];
  for (const choice of Array.isArray(chunk?.choices) ? chunk.choices : []) {
    for (const call of Array.isArray(choice?.delta?.tool_calls) ? choice.delta.tool_calls : []) {
      const key = `${choice.index}:${call.index}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (typeof call.id !== "string" || call.type !== "function" || typeof call.function?.name !== "string") {
        out.push(`the first fragment of tool call ${key} lacks id, type or function.name`);
      }
    }
  }
  return out;
}
