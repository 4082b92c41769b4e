/**
 * Google's embed requests -> the pipeline's embeddings request (pipeline/embed-upstream.ts):
 * one input per request, its text parts joined by a newline (as systemInstruction's are). Every
 * request is read so, native ones too: the hold bounds the texts and titles. `taskType` and
 * `title` are hints another provider has no use for (dropped off Google); what would change the
 * answer and cannot be honoured off Google is a problem (embed.ts's route stage: 400 when no
 * native endpoint is left). Only text is embedded anywhere: Google reports no usage for
 * embeddings, so the gateway could neither bound nor count an image. docs/gemini.md, "Embeddings".
 */
import { inputTokenBound } from "../../pipeline/embed-input.js";
import type { Embedding } from "../../pipeline/embed-upstream.js";
import { unsupported } from "../../plugin/contract.js";
import type { Problem } from "./contents.js";
import type { EmbedContentRequest } from "./embed-schema.js";

/** An embed request as the pipeline carries it, and what a native endpoint needs of it. */
export interface GeminiEmbedding extends Embedding {
  /** One text per request. */
  inputs: string[];
  /** embedContent (one `embedding` in the answer) rather than batchEmbedContents. */
  single: boolean;
  /** The client's requests, for a native endpoint. */
  requests: EmbedContentRequest[];
  /** Titles Google embeds with their text: counted when it answered. */
  titles: string[];
  problems: Problem[];
}

const KNOWN = new Set(["model", "content", "taskType", "title", "outputDimensionality"]);
const CONTENT_KNOWN = new Set(["role", "parts"]);

export function toEmbedding(model: string, requests: EmbedContentRequest[], single: boolean): GeminiEmbedding {
  const problems: Problem[] = [];
  const at = (i: number) => (single ? "" : `requests.${i}.`);
  const inputs = requests.map((r, i) => {
    for (const k of Object.keys(r)) if (!KNOWN.has(k)) problems.push({ param: `${at(i)}${k}`, problem: "cannot be translated for this model" });
    for (const k of Object.keys(r.content))
      if (!CONTENT_KNOWN.has(k)) problems.push({ param: `${at(i)}content.${k}`, problem: "cannot be translated for this model" });
    return textOf(r, `${at(i)}content.parts`);
  });
  const dimensions = requests[0]!.outputDimensionality;
  const differs = requests.findIndex((r) => r.outputDimensionality !== dimensions);
  if (differs > 0)
    problems.push({ param: `requests.${differs}.outputDimensionality`, problem: "every request must ask for the same dimensions for this model" });
  const titles = requests.flatMap((r) => (r.title ? [r.title] : []));
  return { model, inputs, bound: inputTokenBound([...inputs, ...titles]), call: { dimensions }, base64: false, single, requests, titles, problems };
}

function textOf(r: EmbedContentRequest, param: string): string {
  return r.content.parts
    .map((p, j) => {
      if (typeof p.text !== "string" || Object.keys(p).some((k) => k !== "text")) {
        throw unsupported(`${param}.${j}`, "only text parts can be embedded through the gateway.");
      }
      return p.text;
    })
    .join("\n");
}
