/**
 * ListFoundationModels on the control-plane host (not bedrock-runtime).
 * Reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_ListFoundationModels.html
 * Option `controlUrl` overrides `https://bedrock.<region>.amazonaws.com` (proxies, tests).
 */
import type { CallContext, ModelInfo, UpstreamRequest } from "../../src/plugin/contract.js";
import { credentialsOf, regionOf } from "./credentials.js";
import { signRequest } from "./sign.js";

interface Summary {
  modelId?: unknown;
  outputModalities?: unknown;
  inferenceTypesSupported?: unknown;
}

const has = (list: unknown, value: string) => Array.isArray(list) && list.includes(value);

export function listRequest(ctx: Omit<CallContext, "model" | "stream">): Promise<UpstreamRequest> {
  const region = regionOf(ctx.settings);
  const option = ctx.settings.options.controlUrl;
  const base = typeof option === "string" && option ? option.replace(/\/+$/, "") : `https://bedrock.${region}.amazonaws.com`;
  return signRequest({ url: `${base}/foundation-models`, method: "GET", region, service: "bedrock", credentials: credentialsOf(ctx.apiKey) });
}

/** Chat needs text out; models offered only through inference profiles or provisioned throughput are left out. */
export function listResponse(json: unknown): ModelInfo[] {
  const list = (json as { modelSummaries?: unknown } | null)?.modelSummaries;
  if (!Array.isArray(list)) throw new Error("foundation-models: expected modelSummaries");
  return (list as Summary[]).flatMap((m) =>
    typeof m.modelId === "string" && has(m.outputModalities, "TEXT") && has(m.inferenceTypesSupported, "ON_DEMAND") ? [{ id: m.modelId }] : [],
  );
}
