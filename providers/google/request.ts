/**
 * ChatRequest -> Gemini GenerateContentRequest (https://ai.google.dev/api/generate-content).
 * Messages: contents.ts; tools: tools.ts; sampling, output limit, JSON output and thinking
 * go in `generationConfig` (https://ai.google.dev/api/generate-content#generationconfig).
 */
import { type ChatRequest, requestedMaxTokens, unsupported } from "../../src/plugin/contract.js";
import { systemParts, toContents } from "./contents.js";
import { forGemini } from "./schema.js";
import { thinkingConfig } from "./thinking.js";
import { toolFields } from "./tools.js";

export type {} from "./contents.js";

/** Gemini documents candidateCount 1..8. */
const MAX_CANDIDATES = 8;
/** Generations before thought-signature validation: they get no sentinel. */
const UNSIGNED_GENERATION = /^(models\/)?gemini-[12][.-]/;
/** Only these generations accept penalties; 2.5 and 3.x answer "Penalty is not enabled". */
const PENALTY_GENERATION = /^(models\/)?gemini-(1\.|2\.0)/;

export function toGeminiBody(req: ChatRequest, model: string): Record<string, unknown> {
  const system = systemParts(req.messages);
  const body: Record<string, unknown> = { contents: toContents(req.messages, !UNSIGNED_GENERATION.test(model)) };
  if (system.length) body.systemInstruction = { parts: system };
  Object.assign(body, toolFields(req));
  const config = { ...sampling(req), ...penalties(req, model), ...outputFormat(req) };
  const thinking = thinkingConfig(req.reasoning_effort, model);
  if (thinking) config.thinkingConfig = thinking;
  if (Object.keys(config).length) body.generationConfig = config;
  return body;
}

function sampling(req: ChatRequest): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (req.temperature !== undefined) config.temperature = Math.min(Math.max(req.temperature, 0), 2);
  if (req.top_p !== undefined) config.topP = Math.min(Math.max(req.top_p, 0), 1);
  const max = requestedMaxTokens(req);
  if (max !== undefined) config.maxOutputTokens = max;
  const stop = req.stop === undefined ? [] : [req.stop].flat();
  if (stop.length) config.stopSequences = stop;
  if (req.n !== undefined && req.n > MAX_CANDIDATES) throw unsupported("n", `Gemini returns at most ${MAX_CANDIDATES} candidates`);
  if (req.n !== undefined && req.n > 1) config.candidateCount = req.n;
  if (req.seed !== undefined) config.seed = req.seed;
  return config;
}

/** A zero penalty is a no-op: leave it out rather than trip models that reject the field. */
function penalties(req: ChatRequest, model: string): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [field, key] of [
    ["presence_penalty", "presencePenalty"],
    ["frequency_penalty", "frequencyPenalty"],
  ] as const) {
    const value = req[field];
    if (value === undefined || value === 0) continue;
    if (!PENALTY_GENERATION.test(model)) throw unsupported(field, `not supported by the Gemini model '${model}'`);
    config[key] = value;
  }
  return config;
}

/**
 * JSON mode is `responseMimeType: "application/json"`; a json_schema adds `responseJsonSchema`
 * (JSON Schema; `responseSchema`, the OpenAPI subset, must then be omitted). Structured-output
 * guide: https://ai.google.dev/gemini-api/docs/structured-output. `strict` has no switch: the
 * schema always constrains the output.
 */
function outputFormat(req: ChatRequest): Record<string, unknown> {
  const format = req.response_format;
  if (format?.type === "json_object") return { responseMimeType: "application/json" };
  if (format?.type !== "json_schema") return {};
  const schema = format.json_schema.schema;
  return { responseMimeType: "application/json", ...(schema ? { responseJsonSchema: forGemini(schema) } : {}) };
}
