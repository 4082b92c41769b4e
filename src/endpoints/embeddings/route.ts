/**
 * POST /v1/embeddings (docs/embeddings.md) through the one request pipeline (pipeline/run.ts):
 * this file is its Endpoint. Parse reads the input as one list with an upper bound on its
 * tokens; route takes embedding models only, narrowed to endpoints that take every field;
 * hold is that bound × the prompt price; the adapter embeds in batches (pipeline/embed-call.ts,
 * shared with Google's embedContent in pipeline/embed-upstream.ts); usage is
 * the reported count or an estimate, marked so; render is OpenAI's list of vectors.
 */
import { invalidRequest, modelNotFound } from "../../core/errors.js";
import { dropNullFields, isObject } from "../../core/null-fields.js";
import { validate } from "../../core/validate.js";
import { parseJsonBody } from "../../http/body.js";
import type { Embedded } from "../../pipeline/embed-call.js";
import { inputTokenBound, MAX_EMBEDDING_INPUTS, type Inputs } from "../../pipeline/embed-input.js";
import { EMBED_UPSTREAM, type Embedding } from "../../pipeline/embed-upstream.js";
import { render } from "../../pipeline/embed-vectors.js";
import type { Endpoint, EndpointServices } from "../../pipeline/endpoint.js";
import { definesStages } from "../../pipeline/stages.js";
import { EmbeddingsRequest, LooseEmbeddingsRequest } from "./schema.js";

export const EMBEDDINGS: Endpoint<Embedding, Embedded> = definesStages("embeddings", {
  name: "embeddings",
  path: "/v1/embeddings",
  parse(gw, raw) {
    const body = readRequest(gw, raw);
    const inputs = inputsOf(body.input);
    const base64 = body.encoding_format === "base64";
    return { model: body.model, inputs, bound: inputTokenBound(inputs), call: { dimensions: body.dimensions, user: body.user }, base64 };
  },
  missing: (_gw, requested) => modelNotFound(requested),
  ...EMBED_UPSTREAM,
  render(_gw, ex, job, value, usage) {
    ex.json(
      200,
      JSON.stringify({
        object: "list",
        data: value.vectors.map((v, index) => ({ object: "embedding", index, embedding: render(v, job.body.base64 ? "base64" : "float") })),
        model: job.route.model.id,
        usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens },
      }),
    );
  },
});

function readRequest(gw: EndpointServices, raw: Buffer): EmbeddingsRequest {
  const json = parseJsonBody(raw);
  const compat = gw.config.server.compat;
  // Under `openai` an explicit null means absent (docs/openai-compat.md), as on chat.
  if (compat !== "strict" && isObject(json)) dropNullFields(json);
  // Past 2048 a list matches none of the union's forms, and zod would say only that: name the bound.
  const input = isObject(json) ? json.input : undefined;
  if (Array.isArray(input) && input.length > MAX_EMBEDDING_INPUTS && typeof input[0] !== "number") {
    throw invalidRequest(`input: at most ${MAX_EMBEDDING_INPUTS} items`, null, "input");
  }
  return validate(compat === "passthrough" ? LooseEmbeddingsRequest : EmbeddingsRequest, json) as EmbeddingsRequest;
}

/** `input` as a list: a string or one token array is a batch of one. */
function inputsOf(input: EmbeddingsRequest["input"]): Inputs {
  if (typeof input === "string") return [input];
  if (input.length > 0 && typeof input[0] === "number") return [input as number[]];
  return input as Inputs;
}
