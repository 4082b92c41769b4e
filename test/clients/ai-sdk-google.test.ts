/**
 * Vercel's AI SDK google provider (@ai-sdk/google 3.0.141 with ai 6), unchanged but for
 * `baseURL` and `apiKey` on `createGoogleGenerativeAI`, with a vendor-prefixed model id: for an
 * id with a slash it calls `/v1beta/openai/gpt-4o-mini:generateContent` (no `models/`), which
 * the gateway routes to that model (docs/gemini.md, "Routes"). `generateText` and `streamText`
 * with one tool complete a tool step then a text step, translated to an OpenAI and an Anthropic
 * upstream; `embedMany` reaches an OpenAI embedding model through batchEmbedContents.
 */
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { embedMany } from "ai";
import { describe, expect, test } from "vitest";
import type { Recorded, Reply } from "../helpers/fake-upstream.js";
import { openaiEmbeddingReply, vectorOf } from "../helpers/embeddings-wire.js";
import { useGateway } from "../helpers/gateway.js";
import { rows } from "../helpers/rows.js";
import { secondTurn, toolTurns, UPSTREAMS, WEATHER, weatherRun } from "./upstreams.js";

const IDS: Record<string, string> = { OpenAI: "openai/gpt-4o-mini", Anthropic: "anthropic/claude-sonnet-4-5" };

for (const u of UPSTREAMS.filter((x) => IDS[x.name])) {
  const id = IDS[u.name]!;
  describe(`AI SDK google provider, '${id}' against a ${u.name} upstream`, () => {
    const turns = toolTurns(u);
    const h = useGateway(
      (fakeUrl) => ({
        server: { compat: "openai" },
        providers: { [u.fixture.plugin]: u.fixture.provider(fakeUrl, "sk-upstream-aisdk-g-7c2") },
        models: [
          { id, pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: u.fixture.plugin, model: u.fixture.upstreamModel }] },
          ...(u.name === "OpenAI"
            ? [
                {
                  id: "openai/text-embedding-3-small",
                  kind: "embeddings",
                  pricing: { prompt: "1", completion: "0" },
                  endpoints: [{ provider: "openai", model: "te3s" }],
                },
              ]
            : []),
        ],
      }),
      { fallback: (req: Recorded): Reply => (req.path.endsWith("/embeddings") ? openaiEmbeddingReply(req) : turns(req)) },
    );

    for (const streamed of [false, true]) {
      test(`${streamed ? "streamText" : "generateText"} with a tool: a tool step, then the text, billed with the endpoint gemini`, async () => {
        const urls: string[] = [];
        const fetch: typeof globalThis.fetch = (input, init) => (urls.push(String(input)), h.gw.fetch(input, init));
        const model = createGoogleGenerativeAI({ baseURL: `${h.gw.url}/v1beta`, apiKey: h.key, fetch })(id);
        const steps = await weatherRun(model, streamed);
        expect(steps[0]!.toolCalls.map((c) => ({ name: c.toolName, input: c.input }))).toEqual([{ name: "get_weather", input: { city: "Paris" } }]);

        const method = streamed ? "streamGenerateContent?alt=sse" : "generateContent";
        expect(urls).toEqual([1, 2].map(() => `${h.gw.url}/v1beta/${id}:${method}`));
        expect(h.fake.requests.map((r) => r.path)).toEqual([u.path(streamed), u.path(streamed)]);
        expect(u.toolNames(h.fake.requests[0]!.body)).toEqual(["get_weather"]);
        const turn2 = secondTurn(u, h.fake.requests[1]!);
        expect(turn2.results).toEqual([{ id: turn2.calls[0]!.id, text: expect.stringContaining(WEATHER) }]);
        const ledger = await rows<{ endpoint: string; model: string }>(h.gw.db, "SELECT endpoint, model FROM ledger");
        expect(ledger.slice(-2)).toEqual([1, 2].map(() => ({ endpoint: "gemini", model: id })));
      });
    }

    if (u.name === "OpenAI") {
      test("embedMany with 'openai/text-embedding-3-small': batchEmbedContents translated to /v1/embeddings", async () => {
        const google = createGoogleGenerativeAI({ baseURL: `${h.gw.url}/v1beta`, apiKey: h.key, fetch: h.gw.fetch });
        const values = ["sunny days", "rainy nights"];
        const { embeddings } = await embedMany({ model: google.embedding("openai/text-embedding-3-small"), values, maxRetries: 0 });
        expect(embeddings).toEqual(values.map((v) => vectorOf(v)));
        expect(h.fake.requests.map((r) => [r.path, r.body.input])).toEqual([["/v1/embeddings", values]]);
      });
    }
  });
}
