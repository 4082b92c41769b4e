/**
 * The rig the four agents call a gateway tool through (docs/mcp.md): a real MCP server `fs`
 * (helpers/fake-mcp.ts) behind a real gateway on loopback, whose models (Anthropic, OpenAI and
 * Google formats, every name an agent asks for aliased to one of them) are one fake upstream
 * scripting the tool call (mcp-agent-fakes.ts). Keys come with or without a grant for `fs:echo`;
 * what each agent sent the model, what `fs` was asked, and the key's ledger rows and the MCP
 * metrics are there for the assertions.
 */
import { hashKey } from "../../src/access/keys.js";
import { startFakeMcp, type FakeMcp } from "../helpers/fake-mcp.js";
import { startFakeUpstream, type FakeUpstream, type Recorded } from "../helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "../helpers/gateway.js";
import { rows } from "../helpers/rows.js";
import { mcpModelFake, offered, toolResults, type Forced } from "./mcp-agent-fakes.js";

export interface Rig {
  gw: TestGateway;
  fs: FakeMcp;
  model: FakeUpstream;
  /** The name the fake model calls when the agent offers no echo tool. */
  forced: Forced;
  /** A key granted `fs:echo`, or none (`grant: false`); and its id. */
  key(grant: boolean): Promise<{ key: string; id: string }>;
  close(): Promise<void>;
}

const model = (id: string, upstream: string, provider: string) => ({
  id,
  pricing: { prompt: "1", completion: "2" },
  context_length: 200000,
  max_output: 64000,
  endpoints: [{ provider, model: upstream }],
});

export async function startRig(): Promise<Rig> {
  const forced: Forced = { name: "" };
  const [fs, fake] = await Promise.all([startFakeMcp(), startFakeUpstream(mcpModelFake(forced))]);
  const gw = await startGateway({
    server: { compat: "openai" },
    providers: {
      anthropic: { baseUrl: fake.url, apiKey: "sk-ant-mcp-agents-0000" },
      openai: { baseUrl: `${fake.url}/v1`, apiKey: "sk-mcp-agents-0000" },
      google: { baseUrl: fake.url, apiKey: "g-mcp-agents-0000" },
    },
    models: [
      model("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic"),
      model("openai/gpt-5", "gpt-5", "openai"),
      model("google/gemini-2.5-pro", "gemini-2.5-pro", "google"),
    ],
    aliases: { "claude-*": "anthropic/claude-sonnet-4-5", "gpt-*": "openai/gpt-5", "gemini-*": "google/gemini-2.5-pro" },
    mcp: { servers: { fs: { url: fs.url, pricePerCall: "0.001", timeoutMs: 10_000 } } },
  });
  await gw.addCredits("100");
  return {
    gw,
    fs,
    model: fake,
    forced,
    async key(grant) {
      const key = await gw.createKey(grant ? { mcp: ["fs:echo"] } : {});
      const rec = await gw.store.findKeyByHash(hashKey(key));
      return { key, id: rec!.id };
    },
    async close() {
      await gw.close();
      await Promise.all([fs.close(), fake.close()]);
    },
  };
}

/** The model requests since `from` that offered tools (an agent's main turns). */
export const turns = (rig: Rig, from: number): Recorded[] => rig.model.requests.slice(from).filter((r) => r.method === "POST" && offered(r.body).length > 0);

/** Every tool name the agent offered the model since `from`. */
export const namesOffered = (rig: Rig, from: number): string[] => [...new Set(turns(rig, from).flatMap((r) => offered(r.body)))];

/** The tool results the model received since `from`, as JSON text. */
export const resultsSeen = (rig: Rig, from: number): string =>
  turns(rig, from)
    .map((r) => toolResults(r.body))
    .join("\n");

/** The key's MCP ledger rows. */
export const mcpRows = (rig: Rig, keyId: string) =>
  rows<{ model: string; provider: string; status: string; cost: number }>(
    rig.gw.db,
    "SELECT model, provider, status, cost FROM ledger WHERE endpoint = 'mcp' AND key_id = ?",
    keyId,
  );

/**
 * From the gateway's metrics: `/mcp` requests answered 200 (an agent's initialize, tools/list and
 * calls), and tools/call refused for want of a grant (labelled `denied` by endpoints/mcp/call.ts).
 */
export async function mcpCounts(rig: Rig): Promise<{ answered: number; denied: number }> {
  const text = await (await fetch(`${rig.gw.url}/metrics`)).text();
  const count = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  return {
    answered: count(/^gateway_requests_total\{route="\/mcp",status="200",[^}]*\} (\d+)$/m),
    denied: count(/^gateway_mcp_calls_total\{server="[^"]*",tool="-",outcome="denied"\} (\d+)$/m),
  };
}
