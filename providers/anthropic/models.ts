/** GET /v1/models (https://docs.anthropic.com/en/api/models-list): one page of up to 1000, newest first. */
import type { ModelInfo } from "../../src/plugin/contract.js";

interface WireModel {
  id?: unknown;
  max_input_tokens?: unknown;
  max_tokens?: unknown;
}

const positive = (v: unknown): number | undefined => (typeof v === "number" && v > 0 ? v : undefined);

export const MODELS_PATH = "/v1/models?limit=1000";

export function modelsOf(json: unknown): ModelInfo[] {
  const data = (json as { data?: WireModel[] } | null)?.data;
  if (!Array.isArray(data)) throw new Error("anthropic models: expected a data array");
  return data.flatMap((m) => (typeof m.id === "string" ? [{ id: m.id, contextLength: positive(m.max_input_tokens), maxOutput: positive(m.max_tokens) }] : []));
}
