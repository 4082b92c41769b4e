/**
 * Embeddings through the gateway with the clients retrieval pipelines use, unchanged but for
 * the base URL and key: LangChain's `OpenAIEmbeddings` (@langchain/openai; it leaves
 * encoding_format to the openai client, which asks for base64) and the AI SDK's `embedMany`
 * (@ai-sdk/openai `.embedding()`, which asks for floats), against an OpenAI upstream (base64
 * forwarded) and a Gemini upstream (floats, encoded by the gateway when asked).
 */
import { createOpenAI } from "@ai-sdk/openai";
import { OpenAIEmbeddings } from "@langchain/openai";
import { embed, embedMany } from "ai";
import { describe, expect, test } from "vitest";
import type { Recorded, Reply } from "../helpers/fake-upstream.js";
import { float32, openaiEmbeddingReply, tokensOf, vectorOf } from "../helpers/embeddings-wire.js";
import { useGateway } from "../helpers/gateway.js";

// Gemini batchEmbedContents (https://ai.google.dev/api/embeddings): `{embeddings: [{values}]}`, no usage.
function reply(req: Recorded): Reply {
  if (!req.path.includes(":batchEmbedContents")) return openaiEmbeddingReply(req);
  const requests = (req.body as { requests: Array<{ content: { parts: Array<{ text: string }> } }> }).requests;
  return { json: { embeddings: requests.map((r) => ({ values: vectorOf(r.content.parts[0]!.text) })) } };
}

const UPSTREAMS = [
  { name: "OpenAI", model: "openai/text-embedding-3-small", path: "/v1/embeddings" },
  { name: "Gemini", model: "google/gemini-embedding-001", path: "/google/v1beta/models/gemini-embedding-001:batchEmbedContents" },
];

const h = useGateway(
  (fakeUrl) => ({
    providers: {
      openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream" },
      google: { baseUrl: `${fakeUrl}/google`, apiKey: "gemini-key" },
    },
  }),
  { fallback: reply },
);

const texts = ["The cat sat on the mat.", "Embeddings map text to vectors.", "Third document"];

for (const u of UPSTREAMS) {
  describe(`through the gateway to ${u.name}`, () => {
    test("LangChain OpenAIEmbeddings: embedDocuments and embedQuery get each text's vector", async () => {
      const embeddings = new OpenAIEmbeddings({ model: u.model, apiKey: h.key, maxRetries: 0, configuration: { baseURL: `${h.gw.url}/v1` } });
      const docs = await embeddings.embedDocuments(texts);
      expect(docs).toEqual(texts.map((t) => float32(vectorOf(t))));
      expect(await embeddings.embedQuery("a question")).toEqual(float32(vectorOf("a question")));
      expect(h.fake.requests.every((r) => r.path === u.path)).toBe(true);
    });

    test("AI SDK embedMany and embed: the vectors in order, the usage reported", async () => {
      const openai = createOpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.key });
      const many = await embedMany({ model: openai.embedding(u.model), values: texts, maxRetries: 0 });
      expect(many.embeddings).toEqual(texts.map((t) => vectorOf(t)));
      if (u.name === "OpenAI") expect(many.usage.tokens).toBe(tokensOf(texts));
      else expect(many.usage.tokens).toBeGreaterThan(0); // Gemini reports none: the gateway's estimate
      const one = await embed({ model: openai.embedding(u.model), value: "solo", maxRetries: 0 });
      expect(one.embedding).toEqual(vectorOf("solo"));
    });
  });
}
