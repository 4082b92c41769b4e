/**
 * ListFoundationModels on the control-plane host (not bedrock-runtime).
 * Reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_ListFoundationModels.html
 * Option `controlUrl` overrides `https://bedrock.<region>.amazonaws.com` (proxies, tests).
 */
import { readAnswer, type CallContext, type ModelInfo, type UpstreamRequest } from "../../src/plugin/contract.js";
import { modelListSchema } from "./answer-schema.js";
import { credentialsOf, regionOf } from "./credentials.js";
import { signRequest } from "./sign.js";

export function listRequest(ctx: Omit<CallContext, "model" | "stream">): Promise<UpstreamRequest> {
  const region = regionOf(ctx.settings);
  const option = ctx.settings.options.controlUrl;
  const base = typeof option === "string" && option ? option.replace(/\/+$/, "") : `https://bedrock.${region}.amazonaws.com`;
  return signRequest({ url: `${base}/foundation-models`, method: "GET", region, service: "bedrock", credentials: credentialsOf(ctx.apiKey) });
}

/** Chat needs text out; models offered only through inference profiles or provisioned throughput are left out. */
export function listResponse(json: unknown): ModelInfo[] {
  const { modelSummaries } = readAnswer(modelListSchema, json, "bedrock foundation-models");
  return modelSummaries.flatMap((m) => (m.outputModalities?.includes("TEXT") && m.inferenceTypesSupported?.includes("ON_DEMAND") ? [{ id: m.modelId }] : []));
}
