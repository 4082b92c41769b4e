/**
 * Azure OpenAI: the OpenAI wire format with Azure's URL and auth.
 * - baseUrl is the resource's `/openai` root, as the official SDK's AzureOpenAI client builds it
 *   (`https://<resource>.openai.azure.com/openai`);
 * - the endpoint's upstream model name is the deployment name;
 * - auth is the `api-key` header (no Authorization);
 * - option `apiVersion` (default the GA `2024-10-21`, the first GA with `stream_options`);
 *   `apiVersion: v1` selects the v1 API: `<baseUrl>/v1/chat/completions`, no api-version,
 *   the deployment name in the body's `model`.
 * - the OpenAI superset is forwarded as OpenAI defines it, narrowed to what the api-version
 *   knows (./api-version.ts); `max_tokens` / `max_completion_tokens` go as the client sent them
 *   (reasoning deployments need the latter).
 * Reference: https://learn.microsoft.com/azure/ai-foundry/openai/reference
 */
import { defineProvider, readAnswer, type CallContext, type ModelInfo, type ProviderSettings } from "../../src/plugin/contract.js";
import { azureModelList } from "./answer-schema.js";
import { openaiCompatible } from "../openai-compatible/index.js";
import { forApiVersion } from "./api-version.js";

export const GA_API_VERSION = "2024-10-21";

const trimmed = (url: string) => url.replace(/\/+$/, "");

function apiVersion(settings: ProviderSettings): string {
  const v = settings.options.apiVersion;
  return typeof v === "string" && v ? v : GA_API_VERSION;
}

/** The v1 API lives under `<resource>/openai/v1`; either root works as baseUrl. */
function v1Root(settings: ProviderSettings): string {
  const base = trimmed(settings.baseUrl);
  return base.endsWith("/v1") ? base : `${base}/v1`;
}

function chatUrl(ctx: CallContext): string {
  const version = apiVersion(ctx.settings);
  if (version === "v1") return `${v1Root(ctx.settings)}/chat/completions`;
  const deployment = encodeURIComponent(ctx.model);
  return `${trimmed(ctx.settings.baseUrl)}/deployments/${deployment}/chat/completions?api-version=${encodeURIComponent(version)}`;
}

function embeddingsUrl(ctx: CallContext): string {
  const version = apiVersion(ctx.settings);
  if (version === "v1") return `${v1Root(ctx.settings)}/embeddings`;
  return `${trimmed(ctx.settings.baseUrl)}/deployments/${encodeURIComponent(ctx.model)}/embeddings?api-version=${encodeURIComponent(version)}`;
}

function modelsUrl(ctx: Pick<CallContext, "settings">): string {
  const version = apiVersion(ctx.settings);
  if (version === "v1") return `${v1Root(ctx.settings)}/models`;
  return `${trimmed(ctx.settings.baseUrl)}/models?api-version=${encodeURIComponent(version)}`;
}

/** Azure's key header; an Authorization header is never sent (it would be an Entra ID token). */
const headers = (ctx: Pick<CallContext, "apiKey">): Record<string, string> => (ctx.apiKey ? { "api-key": ctx.apiKey } : {});

const base = openaiCompatible({
  name: "azure",
  describe: {
    displayName: "Azure OpenAI",
    byok: true,
    openaiModels: true,
    catalog: { priceListIds: false, litellm: ["azure"], modelsDev: "azure", genaiPrices: "azure", embeddings: true },
    options: ["apiVersion"],
  },
  baseUrl: "https://YOUR-RESOURCE.openai.azure.com/openai",
  apiKeyEnv: "AZURE_OPENAI_API_KEY",
  headers,
  chatUrl,
  transformRequest: (body, ctx) => forApiVersion(body, apiVersion(ctx.settings)),
  // Embeddings - Create (same reference): the deployment URL, OpenAI's fields (dimensions for
  // text-embedding-3 deployments, encoding_format, token-id input, user); at most 2048 inputs.
  embeddings: { user: true, maxBatch: 2048, url: embeddingsUrl },
});

/**
 * Models - List returns the resource's base and fine-tuned models with capabilities; only
 * chat-capable ones are kept. These are model names: they route as-is only where the
 * deployment is named after its model (the common convention).
 */
function chatModels(json: unknown): ModelInfo[] {
  const { data } = readAnswer(azureModelList, json, "azure model list");
  return data.flatMap((m) => (m.capabilities?.chat_completion !== false ? [{ id: m.id }] : []));
}

export default defineProvider({
  ...base,
  defaults: {
    ...base.defaults,
    // AZURE_OPENAI_ENDPOINT is the resource URL the official SDK reads (https://<resource>.openai.azure.com).
    fromEnv: (env) => (env.AZURE_OPENAI_ENDPOINT ? { baseUrl: `${trimmed(env.AZURE_OPENAI_ENDPOINT)}/openai` } : {}),
  },
  models: {
    request: (ctx) => ({ url: modelsUrl(ctx), method: "GET", headers: headers(ctx) }),
    response: chatModels,
  },
  // Responses - Create: the v1 API (`<resource>/openai/v1/responses`, the deployment name as
  // `model`), whatever `apiVersion` chat uses (docs/responses.md "Native or translated").
  native: {
    responses: {
      request: (body, ctx) => ({
        url: `${v1Root(ctx.settings)}/responses`,
        headers: { "content-type": "application/json", ...headers(ctx) },
        body: JSON.stringify(body),
      }),
    },
  },
});
