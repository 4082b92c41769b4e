/**
 * The Messages API natively for Claude models on Bedrock (docs/messages.md): InvokeModel and
 * InvokeModelWithResponseStream take Anthropic's Messages body itself (AWS user guide,
 * model-parameters-anthropic-claude-messages.html) with `anthropic_version:
 * "bedrock-2023-05-31"`, the model in the path instead of the body, no `stream` field (the path
 * says it) and the client's `anthropic-beta` as the body's `anthropic_beta` list. Every other
 * field and block travels as the client sent it. Streamed answers are `chunk` events whose
 * `bytes` are Anthropic's own events, unwrapped here; usage is Anthropic's, read as the
 * Anthropic adapter reads it.
 */
import { readAnswer, type NativeMessages, type UpstreamEvent } from "../../src/plugin/contract.js";
import { usageSchema } from "../anthropic/answer-schema.js";
import { usageOf } from "../anthropic/response.js";
import { credentialsOf, regionOf } from "./credentials.js";
import { signRequest } from "./sign.js";

const BEDROCK_VERSION = "bedrock-2023-05-31";

const isClaude = (model: string): boolean => model.includes("anthropic.");

async function* unwrapChunks(events: AsyncIterable<UpstreamEvent>): AsyncIterable<UpstreamEvent> {
  for await (const e of events) {
    const bytes = (e.data as { bytes?: unknown } | null)?.bytes;
    if (e.event !== "chunk" || typeof bytes !== "string") continue;
    const data = JSON.parse(Buffer.from(bytes, "base64").toString("utf8")) as { type?: unknown };
    yield { event: typeof data.type === "string" ? data.type : undefined, data };
  }
}

export const nativeMessages: NativeMessages = {
  accepts: isClaude,
  request(body, headers, ctx) {
    const { model: _model, stream, ...rest } = body;
    const out: Record<string, unknown> = { anthropic_version: BEDROCK_VERSION, ...rest };
    const betas = headers.beta
      ?.split(",")
      .map((b) => b.trim())
      .filter(Boolean);
    if (betas?.length) out.anthropic_beta = betas;
    const base = ctx.settings.baseUrl.replace(/\/+$/, "");
    return signRequest({
      url: `${base}/model/${encodeURIComponent(ctx.model)}/${stream === true ? "invoke-with-response-stream" : "invoke"}`,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(out),
      region: regionOf(ctx.settings),
      service: "bedrock",
      credentials: credentialsOf(ctx.apiKey),
    });
  },
  events: unwrapChunks,
  usage: (wire) => usageOf(readAnswer(usageSchema, wire, "bedrock anthropic usage")),
};
