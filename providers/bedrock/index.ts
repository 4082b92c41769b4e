/**
 * AWS Bedrock through the Converse API (and InvokeModel for /v1/messages to Claude, native.ts), signed with SigV4. `apiKey` is
 * `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]`; options: `region` (default: from the
 * baseUrl host, else us-east-1), `maxTokens` (default output limit), `controlUrl` (model list).
 */
import { type CallContext, type ChatRequest, type ErrorClass, type UpstreamRequest, defineProvider } from "../../src/plugin/contract.js";
import { remember, stateOf } from "./call-state.js";
import { credentialsOf, regionOf } from "./credentials.js";
import { bedrockEmbeddings } from "./embeddings.js";
import { decodeEventStream } from "./eventstream.js";
import { listRequest, listResponse } from "./models.js";
import { nativeMessages } from "./native.js";
import { toConverse } from "./request.js";
import { fromConverse } from "./response.js";
import { signRequest } from "./sign.js";
import { fromConverseStream } from "./stream.js";

function chatRequest(req: ChatRequest, ctx: CallContext): Promise<UpstreamRequest> {
  const { body, state } = toConverse(req, ctx);
  remember(ctx, state);
  const base = ctx.settings.baseUrl.replace(/\/+$/, "");
  // Model ids carry ':' and ARNs carry '/': one encoded path segment, as the AWS SDK sends it.
  const url = `${base}/model/${encodeURIComponent(ctx.model)}/${ctx.stream ? "converse-stream" : "converse"}`;
  return signRequest({
    url,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    region: regionOf(ctx.settings),
    service: "bedrock",
    credentials: credentialsOf(ctx.apiKey),
  });
}

/**
 * The core's default already fits Bedrock: 403 AccessDenied/UnrecognizedClient reject the key,
 * 408 ModelTimeout, 429 Throttling/ModelNotReady, 500 and 503 retry, 400 Validation and 404
 * do not. Only 424 ModelErrorException (the model failed mid-request) needs saying.
 */
function classifyError(status: number): ErrorClass | undefined {
  return status === 424 ? { retryable: true } : undefined;
}

export default defineProvider({
  name: "bedrock",
  describe: {
    displayName: "Amazon Bedrock",
    byok: true,
    keyTemplate: "${AWS_ACCESS_KEY_ID}:${AWS_SECRET_ACCESS_KEY}",
    catalog: { priceListIds: false, litellm: ["bedrock", "bedrock_converse"], modelsDev: "amazon-bedrock", genaiPrices: "aws" },
    options: ["region", "controlUrl", "maxTokens"],
  },
  // https image URLs are not here: Converse takes image bytes or s3:// only, and the gateway does not download.
  // parallel_tool_calls is not here: Converse has no flag for it.
  features: ["tools", "tool_choice", "json_object", "json_schema", "images", "reasoning_effort"],
  defaults: {
    baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com",
    // Zero-config needs the id and the secret together (one string, as a BYOK key is).
    fromEnv: (env) => ({
      apiKey:
        env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
          ? [env.AWS_ACCESS_KEY_ID, env.AWS_SECRET_ACCESS_KEY, env.AWS_SESSION_TOKEN].filter(Boolean).join(":")
          : undefined,
      baseUrl: env.AWS_REGION ? `https://bedrock-runtime.${env.AWS_REGION}.amazonaws.com` : undefined,
    }),
  },
  chat: {
    request: chatRequest,
    response: (json, ctx) => fromConverse(json, stateOf(ctx)),
    stream: (events, ctx) => fromConverseStream(events, stateOf(ctx)),
  },
  decodeStream: decodeEventStream,
  // POST /v1/messages to a Claude model: InvokeModel with the client's body (native.ts).
  native: { messages: nativeMessages },
  classifyError,
  embeddings: bedrockEmbeddings,
  models: { request: listRequest, response: listResponse },
});
