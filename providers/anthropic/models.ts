import { readAnswer, type ModelInfo } from "../../src/plugin/contract.js";
import { modelListSchema } from "./answer-schema.js";

const positive = (v: number | null | undefined): number | undefined => (typeof v === "number" && v > 0 ? v : undefined);

export const MODELS_PATH = "/v1/models?limit=1000";

export function modelsOf(json: unknown): ModelInfo[] {
  const { data } = readAnswer(modelListSchema, json, "anthropic model list");
  return data.map((m) => ({ id: m.id, contextLength: positive(m.max_input_tokens), maxOutput: positive(m.max_tokens) }));
}
