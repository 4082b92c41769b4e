/**
 * Binding provider preferences (docs/routing.md, "Binding preferences"): a model whose config
 * preferences say `binding: true` keeps its `only`, `ignore` and `max_price` whatever a request's
 * own `provider` says. A request may narrow them (its `only` intersected, its `ignore` joined, the
 * lower `max_price`) but never widen them; one that leaves nothing is the 400 naming its field.
 * Each field on every route that takes `provider`: chat completions, Responses natively (OpenAI)
 * and translated, /v1/messages natively (Anthropic) and translated. Each family of wire formats
 * has a `dear` endpoint ($5 / $5 per 1M, listed first) and a `cheap` one ($1 / $1); every widening
 * request also asks `order: [dear]`, so the dear one would serve were the limit lifted.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { messageItem, responsesAnswer } from "./helpers/responses-wire.js";
import { message, textBlock, wireUsage } from "./providers/anthropic.fixture.js";

type Family = "openai" | "compat" | "anthropic";

const PLUGIN: Record<Family, string> = { openai: "openai", compat: "openai-compatible", anthropic: "anthropic" };

/** Each fake answers in its family's wire format, whichever API of it the gateway calls. */
const ANSWER: Record<Family, (req: Recorded) => Reply> = {
  openai: (req) => (req.path.endsWith("/responses") ? responsesAnswer([messageItem("ok")], { input_tokens: 12, output_tokens: 5 }) : completion("ok")),
  compat: () => completion("ok"),
  anthropic: () => message([textBlock("ok")], wireUsage({ prompt: 12, completion: 5 })),
};

/** The three binding limits, each on a model of its own. */
const LIMITS = {
  only: { only: ["cheap"] },
  ignore: { ignore: ["dear"] },
  max_price: { max_price: { prompt: 2, completion: "2" } },
} as const;
type Field = keyof typeof LIMITS;

const modelId = (family: Family, field: Field) => `${family === "anthropic" ? "anthropic" : "acme"}/bind-${family}-${field}`;

interface Route {
  name: string;
  family: Family;
  path: string;
  body: (model: string, provider: Record<string, unknown>) => Record<string, unknown>;
}

const chatBody = (model: string, provider: Record<string, unknown>) => ({ model, provider, messages: [{ role: "user", content: "hi" }] });
const responsesBody = (model: string, provider: Record<string, unknown>) => ({ model, provider, input: "hi" });
const messagesBody = (model: string, provider: Record<string, unknown>) => ({ model, provider, max_tokens: 64, messages: [{ role: "user", content: "hi" }] });

const ROUTES: Route[] = [
  { name: "chat completions", family: "openai", path: "/v1/chat/completions", body: chatBody },
  { name: "Responses, native (OpenAI)", family: "openai", path: "/v1/responses", body: responsesBody },
  { name: "Responses, translated", family: "compat", path: "/v1/responses", body: responsesBody },
  { name: "Messages, native (Anthropic)", family: "anthropic", path: "/v1/messages", body: messagesBody },
  { name: "Messages, translated", family: "compat", path: "/v1/messages", body: messagesBody },
];

const fakes = {} as Record<Family, { dear: FakeUpstream; cheap: FakeUpstream }>;
let gw: TestGateway;
let key: string;

function config(): Record<string, unknown> {
  const families = Object.keys(PLUGIN) as Family[];
  const providers: Record<string, unknown> = {};
  const models: unknown[] = [];
  for (const f of families) {
    for (const tier of ["dear", "cheap"] as const) {
      const url = fakes[f][tier].url;
      providers[`${f}-${tier}`] = { plugin: PLUGIN[f], baseUrl: f === "anthropic" ? url : `${url}/v1`, apiKey: `sk-binding-${f}-${tier}-upstream-0000` };
    }
    for (const field of Object.keys(LIMITS) as Field[]) {
      // The config names instances: the limit's `dear` / `cheap` are this family's.
      const named = (ids: readonly string[]) => ids.map((id) => `${f}-${id}`);
      const limit = LIMITS[field];
      const provider = "only" in limit ? { only: named(limit.only) } : "ignore" in limit ? { ignore: named(limit.ignore) } : { max_price: limit.max_price };
      models.push({
        id: modelId(f, field),
        pricing: { prompt: "2", completion: "2" },
        max_output: 1000,
        provider: { ...provider, binding: true },
        endpoints: [
          { provider: `${f}-dear`, model: "up-dear", pricing: { prompt: "5", completion: "5" } },
          { provider: `${f}-cheap`, model: "up-cheap", pricing: { prompt: "1", completion: "1" } },
        ],
      });
    }
  }
  return { providers, models, retry: { initialInterval: 5, maxInterval: 10, exponent: 1.5, maxElapsedTime: 500 } };
}

beforeAll(async () => {
  for (const f of Object.keys(PLUGIN) as Family[]) fakes[f] = { dear: await startFakeUpstream(ANSWER[f]), cheap: await startFakeUpstream(ANSWER[f]) };
  gw = await startGateway(config());
  key = await gw.createKey({ account: "binding" });
  await gw.addCredits("10", "binding");
});
afterAll(async () => {
  await gw?.close();
  for (const f of Object.values(fakes)) await Promise.all([f.dear.close(), f.cheap.close()]);
});

/** Sends the route's request to the model limited by `field`; the family's fakes forget earlier requests first. */
function send(route: Route, field: Field, provider: Record<string, unknown>): Promise<Response> {
  fakes[route.family].dear.requests.length = fakes[route.family].cheap.requests.length = 0;
  const auth: Record<string, string> =
    route.path === "/v1/messages" ? { "x-api-key": key, "anthropic-version": "2023-06-01" } : { authorization: `Bearer ${key}` };
  route.family === "anthropic" || route.path === "/v1/messages" ? { "x-api-key": key, "anthropic-version": "2023-06-01" } : { authorization: `Bearer ${key}` };
  return fetch(`${gw.url}${route.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth },
    body: JSON.stringify(route.body(modelId(route.family, field), provider)),
  });
}

/** The request was served by the family's cheap endpoint; the dear one was never asked. */
async function servedByCheap(route: Route, res: Response): Promise<void> {
  expect(res.status, await res.clone().text()).toBe(200);
  await res.arrayBuffer();
  expect(fakes[route.family].dear.requests).toHaveLength(0);
  expect(fakes[route.family].cheap.requests).toHaveLength(1);
}

/** The 400 naming `field`, before any upstream call. */
async function refused(route: Route, res: Response, field: string): Promise<void> {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { type: string; code: string; message: string } };
  expect(body.error).toMatchObject({ type: "invalid_request_error", code: "no_endpoint_matches" });
  expect(body.error.message.startsWith(`${field}: `), body.error.message).toBe(true);
  expect(fakes[route.family].dear.requests.length + fakes[route.family].cheap.requests.length).toBe(0);
}

describe.each(ROUTES)("$name", (route) => {
  const dear = `${route.family}-dear`;
  const cheap = `${route.family}-cheap`;

  test("only: a request's own only cannot add a provider; it is intersected with the config's", async () => {
    await servedByCheap(route, await send(route, "only", { only: [dear, cheap], order: [dear] }));
    await refused(route, await send(route, "only", { only: [dear] }), "provider.only");
  });

  test("ignore: a request's own ignore cannot drop the config's; the two are joined", async () => {
    await servedByCheap(route, await send(route, "ignore", { ignore: [], order: [dear] }));
    await refused(route, await send(route, "ignore", { ignore: [cheap] }), "provider.ignore");
  });

  test("max_price: a request's own cannot raise the config's; the lower of the two holds, field by field", async () => {
    await servedByCheap(route, await send(route, "max_price", { max_price: { prompt: 100, completion: 100 }, order: [dear] }));
    await servedByCheap(route, await send(route, "max_price", { max_price: { completion: 9 }, order: [dear] }));
    await refused(route, await send(route, "max_price", { max_price: { prompt: "0.5" } }), "provider.max_price");
  });
});

test("binding is validated as config: a misspelt key is named with a did-you-mean", async () => {
  const { parseConfig } = await import("../src/config/config.js");
  const model = { id: "acme/x", endpoints: [{ provider: "a", model: "m" }] };
  expect(() => parseConfig({ models: [{ ...model, provider: { ignore: ["a"], bindng: true } }] })).toThrow(
    /models\.0\.provider\.bindng: unknown key \(did you mean binding\?\)/,
  );
  expect(() => parseConfig({ models: [{ ...model, provider: { binding: "yes" } }] })).toThrow(/models\.0\.provider\.binding/);
});

test("a request cannot send binding: it is the config's word, not a request field", async () => {
  const res = await send(ROUTES[0]!, "ignore", { binding: false });
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^provider/);
});
