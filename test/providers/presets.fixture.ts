/**
 * Conformance fixtures for the OpenAI-format presets, on the shared OpenAI wire fixture, plus a
 * harness for each preset's own tests (a gateway with that preset pointed at a fake).
 */
import Database from "better-sqlite3";
import type { ProviderFixture } from "../helpers/conformance.js";
import type { Reply } from "../helpers/fake-upstream.js";
import { FAST_RETRY, useGateway, type Harness, type TestGateway } from "../helpers/gateway.js";
import { openaiFormatFixture } from "../helpers/openai-wire.js";
import { mistralToolCallId } from "../../providers/mistral/tool-ids.js";

type Chunk = Record<string, unknown>;

/**
 * Mistral, Together and Fireworks send usage on the chunk that has finish_reason set, with no
 * separate usage chunk (a recorded Mistral stream: M-Lai-ai/LLM-Provider-reference
 * Mistral/streaming.md; Fireworks: docs.fireworks.ai/tools-sdks/openai-compatibility).
 */
export function usageOnFinishChunk(reply: Reply): Reply {
  if (!("sse" in reply)) return reply;
  const events = reply.sse.map((e) => (typeof e === "string" ? JSON.parse(e) : e.data) as Chunk);
  const [finish, usage] = events.slice(-2);
  if (!finish || !usage || (usage.choices as unknown[]).length > 0) return reply;
  return { ...reply, sse: [...events.slice(0, -2), { ...finish, usage: usage.usage }].map((data) => ({ data })) };
}

/** For providers whose streams always end with usage: the gateway must stream without `stream_options`. */
function usageByDefault(plugin: string, opts: { basePath?: string } = {}): ProviderFixture {
  const base = openaiFormatFixture(plugin, opts);
  return {
    ...base,
    stream: (pieces, usage, finish) => usageOnFinishChunk(base.stream(pieces, usage, finish)),
    streamToolCall: (call, usage) => usageOnFinishChunk(base.streamToolCall(call, usage)),
    seen: (req) => ({ ...base.seen(req), stream: req.body.stream === true && !("stream_options" in req.body) }),
  };
}

/** The suite's tool history uses `call_abc123`; Mistral must receive its nine-character form. */
function mistral(): ProviderFixture {
  const base = usageByDefault("mistral");
  const original = new Map(["call_abc123"].map((id) => [mistralToolCallId(id), id]));
  const back = (id: string) => original.get(id) ?? `unmapped:${id}`;
  return {
    ...base,
    seen(req) {
      const seen = base.seen(req);
      return {
        ...seen,
        messages: seen.messages.map((m) => ({
          ...m,
          ...(m.toolCalls && { toolCalls: m.toolCalls.map((t) => ({ ...t, id: back(t.id) })) }),
          ...(m.toolResult && { toolResult: { ...m.toolResult, id: back(m.toolResult.id) } }),
        })),
      };
    },
  };
}

export const presetFixtures: ProviderFixture[] = [
  mistral(),
  openaiFormatFixture("groq"),
  openaiFormatFixture("deepseek", { basePath: "" }),
  openaiFormatFixture("xai"),
  usageByDefault("together"),
  usageByDefault("fireworks", { basePath: "/inference/v1" }),
];

export const MODEL = "vendor/model";

/** A gateway with the preset pointed at a fake, for the preset's own tests; `post` defaults to MODEL and one user turn. */
export function usePreset(plugin: string, entry: Record<string, unknown> = {}, basePath = "/v1"): Harness {
  return useGateway(
    (fakeUrl) => ({
      providers: { [plugin]: { baseUrl: `${fakeUrl}${basePath}`, apiKey: "sk-upstream-preset", ...entry } },
      models: [{ id: MODEL, pricing: { prompt: "1", completion: "2" }, max_output: 1000, endpoints: [{ provider: plugin, model: "upstream-model" }] }],
      retry: FAST_RETRY,
    }),
    { body: { model: MODEL, messages: [{ role: "user", content: "Hi" }] } },
  );
}

/** Reads an SSE body from the gateway into its JSON chunks. */
export async function chunks(res: Response): Promise<Chunk[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .map((e) => e.replace(/^data: /, "").trim())
    .filter((d) => d && d !== "[DONE]")
    .map((d) => JSON.parse(d) as Chunk);
}

export interface LedgerRow {
  prompt_tokens: number;
  completion_tokens: number;
  usage_source: string;
}

/** The ledger row of the request that `action` makes (settling a stream can trail its last byte). */
export async function billedFor(gw: TestGateway, action: () => Promise<unknown>): Promise<LedgerRow> {
  const db = new Database(gw.db, { readonly: true });
  try {
    const rows = () => db.prepare("SELECT prompt_tokens, completion_tokens, usage_source FROM ledger ORDER BY id").all() as LedgerRow[];
    const before = rows().length;
    await action();
    for (let i = 0; i < 100; i++) {
      const now = rows();
      if (now.length > before) return now.at(-1)!;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error("the request was not billed");
  } finally {
    db.close();
  }
}
