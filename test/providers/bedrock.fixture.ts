/**
 * Bedrock Converse wire fixtures, as AWS's API reference shows them:
 * - Converse response: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 * - ConverseStream events (binary `application/vnd.amazon.eventstream` frames, one event per
 *   frame, `:event-type` header, JSON payload padded with a `p` field):
 *   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 * - errors: `{message}` with the type in `x-amzn-ErrorType`:
 *   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors
 * Frames are encoded with the same EventStreamCodec AWS uses, so CRCs and preludes are real.
 */
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { AwsCredentials } from "../../providers/bedrock/credentials.js";
import type { Call, Finish, ProviderFixture, SeenRequest, Tokens } from "../helpers/conformance.js";
import type { Recorded, Reply } from "../helpers/fake-upstream.js";

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
export const SECRET = "wJalrXUtnFEMI/K7MDENG";
export const ERROR_MARKER = "bedrock-error-marker-5d2";

export interface WireUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

const STOP: Record<Finish, string> = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use" };
const wire = (u: Tokens): WireUsage => ({ inputTokens: u.prompt, outputTokens: u.completion });
const total = (u: WireUsage) => u.inputTokens + u.outputTokens + (u.cacheReadInputTokens ?? 0) + (u.cacheWriteInputTokens ?? 0);

/** A Converse response body. */
export function converse(content: unknown[], stopReason: string, usage: WireUsage): Reply {
  return {
    headers: { "x-amzn-requestid": "5d2f6c1e-8a0b-4d7e-9f3a-1b2c3d4e5f60" },
    json: { output: { message: { role: "assistant", content } }, stopReason, usage: { ...usage, totalTokens: total(usage) }, metrics: { latencyMs: 412 } },
  };
}

function headers(kind: "event" | "exception", type: string) {
  return {
    [kind === "event" ? ":event-type" : ":exception-type"]: { type: "string" as const, value: type },
    ":content-type": { type: "string" as const, value: "application/json" },
    ":message-type": { type: "string" as const, value: kind },
  };
}

/** One event frame; Bedrock pads each payload with a random-length `p` to hide token lengths. */
export function frame(eventType: string, payload: Record<string, unknown>): Uint8Array {
  const p = PADDING.slice(0, 5 + (eventType.length % 20));
  return codec.encode({ headers: headers("event", eventType), body: fromUtf8(JSON.stringify({ ...payload, p })) });
}

export function exceptionFrame(type: string): Uint8Array {
  return codec.encode({ headers: headers("exception", type), body: fromUtf8(JSON.stringify({ message: `${ERROR_MARKER} ${type}` })) });
}

export const messageStart = () => frame("messageStart", { role: "assistant" });
export const textDelta = (text: string, index = 0) => frame("contentBlockDelta", { contentBlockIndex: index, delta: { text } });
export const blockStop = (index = 0) => frame("contentBlockStop", { contentBlockIndex: index });
export const messageStop = (stopReason: string) => frame("messageStop", { stopReason });
export const metadata = (usage: WireUsage) => frame("metadata", { usage: { ...usage, totalTokens: total(usage) }, metrics: { latencyMs: 380 } });

export const toolStart = (toolUseId: string, name: string, index: number) =>
  frame("contentBlockStart", { contentBlockIndex: index, start: { toolUse: { toolUseId, name } } });
export const toolInput = (input: string, index: number) => frame("contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input } } });
/** Reasoning as ConverseStream sends it (ReasoningContentBlockDelta: text, then signature). */
export const reasoningDelta = (delta: { text: string } | { signature: string }, index: number) =>
  frame("contentBlockDelta", { contentBlockIndex: index, delta: { reasoningContent: delta } });

/** The frames of one tool-use block: start (id, name), input in two fragments, stop. */
export function toolFrames(call: Call, index: number): Uint8Array[] {
  const mid = Math.floor(call.arguments.length / 2);
  return [
    frame("contentBlockStart", { contentBlockIndex: index, start: { toolUse: { toolUseId: call.id, name: call.name } } }),
    frame("contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input: call.arguments.slice(0, mid) } } }),
    frame("contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input: call.arguments.slice(mid) } } }),
    blockStop(index),
  ];
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A ConverseStream reply; by default one frame per network chunk, or explicit chunks. */
export function eventStream(frames: Uint8Array[], chunks?: Uint8Array[], delayMs?: number): Reply {
  return { headers: { "content-type": "application/vnd.amazon.eventstream" }, raw: concatBytes(frames), chunks: chunks ?? frames, delayMs };
}

const ERROR_TYPES: Record<number, string> = {
  400: "ValidationException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  408: "ModelTimeoutException",
  424: "ModelErrorException",
  429: "ThrottlingException",
  500: "InternalServerException",
  503: "ServiceUnavailableException",
};

export function bedrockError(status: number): Reply {
  const type = ERROR_TYPES[status] ?? "InternalServerException";
  return {
    status,
    headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, "x-amzn-requestid": "0c9e1f7a-2b3d-4e5f-8a9b-0c1d2e3f4a5b" },
    json: { message: `${ERROR_MARKER}: ${type}` },
  };
}

// ---- reading what the fake received -----------------------------------------------------

interface WireBlock {
  text?: string;
  toolUse?: { toolUseId: string; name: string; input: unknown };
  toolResult?: { toolUseId: string; content: Array<{ text?: string }> };
}
interface WireMessage {
  role: "user" | "assistant";
  content: WireBlock[];
}

function neutral(m: WireMessage): SeenRequest["messages"] {
  const results = m.content
    .filter((b) => b.toolResult)
    .map((b) => ({
      role: "tool" as const,
      toolResult: { id: b.toolResult!.toolUseId, text: b.toolResult!.content.map((c) => c.text ?? "").join("") },
    }));
  const text = m.content
    .filter((b) => typeof b.text === "string")
    .map((b) => b.text)
    .join("");
  const calls = m.content
    .filter((b) => b.toolUse)
    .map((b) => ({ id: b.toolUse!.toolUseId, name: b.toolUse!.name, arguments: JSON.stringify(b.toolUse!.input) }));
  if (!text && !calls.length) return results;
  const out: SeenRequest["messages"][number] = { role: m.role };
  if (text) out.text = text;
  if (calls.length) out.toolCalls = calls;
  return [...results, out];
}

/** The access key id from `Authorization: AWS4-HMAC-SHA256 Credential=<id>/<date>/<region>/<service>/aws4_request, ...`. */
export const accessKeyOf = (req: Recorded) => /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ""))?.[1];

export function seenBedrock(req: Recorded): SeenRequest {
  const b = req.body as { messages: WireMessage[]; system?: Array<{ text: string }>; inferenceConfig?: Record<string, any> };
  const route = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(req.path);
  return {
    path: req.path,
    auth: accessKeyOf(req),
    model: route ? decodeURIComponent(route[1]!) : undefined,
    system: b.system?.map((s) => s.text).join("\n") || null,
    messages: b.messages.flatMap(neutral),
    stop: b.inferenceConfig?.stopSequences,
    maxTokens: b.inferenceConfig?.maxTokens,
    temperature: b.inferenceConfig?.temperature,
    stream: route?.[2] === "converse-stream",
  };
}

/** Re-signs what the fake received with AWS's signer; equal Authorization = a valid signature over these exact bytes. */
export async function resign(req: Recorded, credentials: AwsCredentials, region: string, raw = req.raw): Promise<string | undefined> {
  const auth = String(req.headers.authorization);
  const names = /SignedHeaders=([^,]+)/.exec(auth)![1]!.split(";");
  // Generated headers are left out: the signer derives them again (the body hash from the body).
  const kept = names.filter((n) => !["x-amz-date", "x-amz-security-token", "x-amz-content-sha256"].includes(n));
  const url = new URL(req.path, `http://${req.headers.host}`);
  const date = String(req.headers["x-amz-date"]).replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, "$1-$2-$3T$4:$5:$6Z");
  const signer = new SignatureV4({ service: "bedrock", region, credentials, sha256: Hash.bind(null, "sha256") });
  const signed = await signer.sign(
    {
      method: req.method,
      protocol: "http:",
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: {},
      headers: Object.fromEntries(kept.map((n) => [n, String(req.headers[n])])),
      body: raw,
    },
    { signingDate: new Date(date) },
  );
  return signed.headers.authorization;
}

/** Bytes as a network would deliver them, `size` at a time. */
export async function* bytes(data: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

export const UPSTREAM_MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

export const bedrockFixture: ProviderFixture = {
  plugin: "bedrock",
  // The conformance key is the access key id; the secret rides along after ':'.
  provider: (url, apiKey) => ({ plugin: "bedrock", baseUrl: url, apiKey: `${apiKey}:${SECRET}`, region: "us-west-2" }),
  upstreamModel: UPSTREAM_MODEL,
  text: (text, u, finish = "stop") => converse([{ text }], STOP[finish], wire(u)),
  stream: (pieces, u, finish = "stop") =>
    eventStream([messageStart(), ...pieces.map((p) => textDelta(p)), blockStop(), messageStop(STOP[finish]), metadata(wire(u))]),
  toolCall: (call, u) => converse([{ toolUse: { toolUseId: call.id, name: call.name, input: JSON.parse(call.arguments) } }], "tool_use", wire(u)),
  streamToolCall: (call, u) => eventStream([messageStart(), ...toolFrames(call, 0), messageStop("tool_use"), metadata(wire(u))]),
  error: bedrockError,
  seen: seenBedrock,
  errorMarker: ERROR_MARKER,
};
