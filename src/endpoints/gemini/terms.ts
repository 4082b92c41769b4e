/**
 * An error raised in chat's terms (capabilities, adapters) renamed to the Gemini request's own
 * fields (`response_format` is `generationConfig.responseMimeType`), so a 400 on /v1beta names
 * what the client sent.
 */
import { GatewayError } from "../../core/errors.js";

const FIELDS: Record<string, string> = {
  tools: "tools",
  tool_choice: "toolConfig.functionCallingConfig",
  parallel_tool_calls: "tools",
  response_format: "generationConfig.responseMimeType",
  reasoning_effort: "generationConfig.thinkingConfig",
  max_tokens: "generationConfig.maxOutputTokens",
  stop: "generationConfig.stopSequences",
  temperature: "generationConfig.temperature",
  top_p: "generationConfig.topP",
  seed: "generationConfig.seed",
  presence_penalty: "generationConfig.presencePenalty",
  frequency_penalty: "generationConfig.frequencyPenalty",
  n: "generationConfig.candidateCount",
  model: "model",
  // Embeddings (embed.ts): the pipeline's fields, as Google's embed requests name them.
  dimensions: "outputDimensionality",
  input: "requests",
};

/** A chat field to the Gemini field it came from; a Gemini path (`tools.0.googleSearch`) stays. */
function geminiParam(param: string): string {
  if (param.startsWith("messages.")) return "contents";
  return FIELDS[param] ?? param;
}

export function inGeminiTerms(err: unknown): unknown {
  if (!(err instanceof GatewayError) || !err.param) return err;
  const param = geminiParam(err.param);
  if (param === err.param) return err;
  const message = err.message.startsWith(`${err.param}:`) ? `${param}:${err.message.slice(err.param.length + 1)}` : err.message;
  return new GatewayError(err.status, err.type, err.code, message, { headers: err.headers, param, cause: err.cause });
}
