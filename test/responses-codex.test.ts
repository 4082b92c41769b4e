/**
 * /v1/responses with what Codex CLI 0.169 sends (docs/responses.md "Codex"), on the translated
 * path: an Anthropic-format fake (the wire of test/providers/anthropic.fixture.ts). Codex's
 * fields are accepted and dropped where Anthropic has no use for them; a namespace tool's
 * function is offered flat and its call comes back as a `function_call` naming its
 * `namespace`; a custom tool is a function with one string parameter and comes back as a
 * `custom_tool_call` (JSON and streamed), its output the next turn's tool result; hosted tools
 * are left out and named in X-Gateway-Ignored and the log line under compat openai, a 400 under
 * strict. The native path (OpenAI's own /responses): responses-codex-native.test.ts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { startFakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, useGateway } from "./helpers/gateway.js";
import { message, messageEnd, messageStart, textBlock, toolBlockEvents, toolUseBlock } from "./providers/anthropic.fixture.js";

const MODEL = "test/claude";
const usage = { input_tokens: 40, output_tokens: 9 };
const config = (compat: string) => (fakeUrl: string) => ({
  server: { compat },
  providers: { anthropic: { baseUrl: fakeUrl, apiKey: "sk-ant-upstream-codex-1" } },
  models: [{ id: MODEL, pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "anthropic", model: "claude-up" }] }],
});
const h = useGateway(config("openai"), { account: "codex" });

const create = (body: Record<string, unknown>, url = h.gw.url, key = h.key) =>
  fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, ...body }),
  });

const execCommand = {
  type: "function",
  name: "exec_command",
  description: "Runs a command in a PTY.",
  strict: false,
  parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"], additionalProperties: false },
};
const namespace = {
  type: "namespace",
  name: "multi_agent_v1",
  description: "Tools for spawning and managing sub-agents.",
  tools: [
    {
      type: "function",
      name: "spawn_agent",
      description: "Spawn an agent.",
      strict: false,
      parameters: { type: "object", properties: { task: { type: "string" } } },
    },
  ],
};
const GRAMMAR = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF';
const applyPatch = {
  type: "custom",
  name: "apply_patch",
  description: "Edit files. A FREEFORM tool.",
  format: { type: "grammar", syntax: "lark", definition: GRAMMAR },
};
const PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n";

const user = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });

async function events(res: Response): Promise<any[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((f) => f.includes("data: "))
    .map((f) => JSON.parse(f.slice(f.indexOf("data: ") + 6)) as unknown);
}

describe("Codex's request fields", () => {
  test("client_metadata, include, prompt_cache_key, reasoning.summary, text.verbosity, parallel_tool_calls, store: false: accepted, dropped for Anthropic", async () => {
    h.fake.queue(message([textBlock("hi")], usage));
    const res = await create({
      input: [{ type: "message", role: "developer", content: [{ type: "input_text", text: "You are Codex." }] }, user("hi")],
      tools: [execCommand],
      tool_choice: "auto",
      parallel_tool_calls: true,
      reasoning: { summary: "auto" },
      store: false,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "01a21793-48b3-7a20-a82a-745298897094",
      client_metadata: { "x-codex-installation-id": "5302e4eb", thread_id: "01a21793" },
      text: { verbosity: "low" },
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ status: "completed", store: false, reasoning: { summary: "auto" }, output: [{ type: "message", content: [{ text: "hi" }] }] });
    const sent = h.sent();
    for (const k of ["client_metadata", "include", "prompt_cache_key", "text", "reasoning", "store", "verbosity"]) expect(sent).not.toHaveProperty(k);
    expect(sent.system).toBe("You are Codex.");
    expect(sent.tools.map((t: any) => t.name)).toEqual(["exec_command"]);
  });
});

describe("namespace tools", () => {
  for (const stream of [false, true]) {
    test(`the namespace's function is offered flat; its call comes back naming the namespace; the next turn replays it (${stream ? "streamed" : "JSON"})`, async () => {
      const call = { id: "toolu_01NsCall", name: "multi_agent_v1__spawn_agent", arguments: '{"task":"lint"}' };
      h.fake.queue(
        stream
          ? { sse: [messageStart({ input_tokens: 40 }), ...toolBlockEvents(0, call), ...messageEnd("tool_use", { output_tokens: 9 })] }
          : message([toolUseBlock(call)], usage, "tool_use"),
      );
      const res = await create({ input: [user("spawn")], tools: [execCommand, namespace], stream });
      expect(res.status).toBe(200);
      expect(h.sent().tools.map((t: any) => t.name)).toEqual(["exec_command", "multi_agent_v1__spawn_agent"]);
      const out = stream ? (await events(res)).find((e) => e.type === "response.completed").response.output : ((await res.json()) as any).output;
      expect(out).toEqual([
        {
          type: "function_call",
          id: expect.any(String),
          call_id: "toolu_01NsCall",
          name: "spawn_agent",
          namespace: "multi_agent_v1",
          arguments: '{"task":"lint"}',
          status: "completed",
        },
      ]);

      h.fake.queue(message([textBlock("done")], usage));
      const next = await create({
        input: [user("spawn"), out[0], { type: "function_call_output", call_id: "toolu_01NsCall", output: "agent 7 started" }],
        tools: [execCommand, namespace],
      });
      expect(next.status).toBe(200);
      const msgs = h.sent().messages;
      expect(msgs[1].content).toEqual([
        expect.objectContaining({ type: "tool_use", id: "toolu_01NsCall", name: "multi_agent_v1__spawn_agent", input: { task: "lint" } }),
      ]);
      expect(msgs[2].content).toEqual([expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_01NsCall", content: "agent 7 started" })]);
    });
  }
});

describe("custom tools", () => {
  for (const stream of [false, true]) {
    test(`offered as a function with one string parameter; the call is a custom_tool_call with its input; its output is the next tool result (${stream ? "streamed" : "JSON"})`, async () => {
      const call = { id: "toolu_01Patch", name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) };
      h.fake.queue(
        stream
          ? { sse: [messageStart({ input_tokens: 40 }), ...toolBlockEvents(0, call), ...messageEnd("tool_use", { output_tokens: 9 })] }
          : message([toolUseBlock(call)], usage, "tool_use"),
      );
      const res = await create({ input: [user("add hello.txt")], tools: [applyPatch], stream });
      expect(res.status).toBe(200);
      const tool = h.sent().tools[0];
      expect(tool).toMatchObject({
        name: "apply_patch",
        input_schema: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
      });
      expect(tool.description).toContain(GRAMMAR);
      let out: any[];
      if (stream) {
        const all = await events(res);
        expect(all.find((e) => e.type === "response.custom_tool_call_input.done")).toMatchObject({ input: PATCH });
        out = all.find((e) => e.type === "response.completed").response.output;
      } else out = ((await res.json()) as any).output;
      expect(out).toEqual([
        { type: "custom_tool_call", id: expect.any(String), call_id: "toolu_01Patch", name: "apply_patch", input: PATCH, status: "completed" },
      ]);

      h.fake.queue(message([textBlock("Created hello.txt")], usage));
      const next = await create({
        input: [user("add hello.txt"), out[0], { type: "custom_tool_call_output", call_id: "toolu_01Patch", output: "Success. Updated: A hello.txt" }],
        tools: [applyPatch],
      });
      expect(next.status).toBe(200);
      const msgs = h.sent().messages;
      expect(msgs[1].content).toEqual([expect.objectContaining({ type: "tool_use", id: "toolu_01Patch", name: "apply_patch", input: { input: PATCH } })]);
      expect(msgs[2].content).toEqual([
        expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_01Patch", content: "Success. Updated: A hello.txt" }),
      ]);
    });
  }
});

describe("hosted tools", () => {
  const hosted = [
    { type: "web_search", external_web_access: true },
    { type: "tool_search", execution: "client", description: "Tool discovery", parameters: { type: "object" } },
    { type: "web_search" },
  ];

  test("compat openai: left out of the upstream request, named in X-Gateway-Ignored (JSON and stream) and in the log line", async () => {
    h.fake.queue(message([textBlock("ok")], usage));
    const res = await create({ input: "hi", tools: [execCommand, ...hosted] });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-ignored")).toBe("tools.web_search,tools.tool_search");
    const id = res.headers.get("x-request-id");
    expect(h.sent().tools.map((t: any) => t.name)).toEqual(["exec_command"]);
    await res.json();

    h.fake.queue({ sse: [messageStart({ input_tokens: 40 }), ...messageEnd("end_turn", { output_tokens: 9 })] });
    const streamed = await create({ input: "hi", tools: hosted, stream: true });
    expect(streamed.headers.get("x-gateway-ignored")).toBe("tools.web_search,tools.tool_search");
    expect(h.sent()).not.toHaveProperty("tools");
    await streamed.text();

    const gw = await startGateway(config("openai")(h.fake.url));
    try {
      const key = await gw.createKey();
      await gw.addCredits("1");
      h.fake.queue(message([textBlock("ok")], usage));
      const one = await create({ input: "hi", tools: hosted }, gw.url, key);
      expect(one.status).toBe(200);
      const reqId = one.headers.get("x-request-id");
      await one.json();
      await gw.close();
      const line = readFileSync(gw.logFile!, "utf8")
        .split("\n")
        .filter((l) => l.includes('"msg":"request"'))
        .map((l) => JSON.parse(l) as { req_id: string; ignored?: string })
        .find((l) => l.req_id === reqId);
      expect(line?.ignored).toBe("tools.web_search,tools.tool_search");
    } finally {
      await gw.close();
    }
    expect(id).toBeTruthy();
  });

  test("a hosted tool's item replayed from an earlier native turn is dropped on a translated route", async () => {
    h.fake.queue(message([textBlock("ok")], usage));
    const search = { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "gateway" } };
    const res = await create({ input: [user("find it"), search, user("and now?")] });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(h.sent().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "find it" },
          { type: "text", text: "and now?" },
        ],
      },
    ]);
  });

  test("compat strict: a hosted tool the provider does not run is a 400 unsupported_parameter naming it, nothing sent upstream", async () => {
    const fake = await startFakeUpstream();
    const gw = await startGateway(config("strict")(fake.url));
    try {
      const key = await gw.createKey();
      await gw.addCredits("1");
      const res = await create({ input: "hi", tools: [execCommand, ...hosted] }, gw.url, key);
      const body = (await res.json()) as any;
      expect(res.status).toBe(400);
      expect(body.error).toMatchObject({ type: "invalid_request_error", code: "unsupported_parameter" });
      expect(body.error.message).toMatch(/^tools\.1\.type: 'web_search'/);
      expect(fake.requests).toHaveLength(0);
    } finally {
      await gw.close();
      await fake.close();
    }
  });
});
