/**
 * The heap's sizing while many model requests are in flight (src/cli/heap-under-load.ts,
 * docs/architecture.md "Memory"): the count it follows, over real requests, and its hysteresis.
 * What it saves is measured by `npm run bench -- --streams`, not here.
 */
import { execFileSync } from "node:child_process";
import { expect, test } from "vitest";
import { CACHE_HELD, heapPolicy, IN_FLIGHT, V8_DEFAULT_GROWTH } from "../src/cli/heap-under-load.js";
import { onInFlight } from "../src/http/in-flight.js";
import { openaiConfig, useGateway } from "./helpers/gateway.js";
import { completion, stream } from "./helpers/openai-wire.js";

const h = useGateway((fakeUrl) => openaiConfig(fakeUrl), { credits: "10" });
const body = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };
const pieces = Array.from({ length: 15 }, (_, i) => `t${i} `);

test("the in-flight count: one per model request while it runs, back to zero after, clients that leave mid-stream included", async () => {
  const seen: number[] = [];
  onInFlight((n) => seen.push(n));
  try {
    for (let i = 0; i < 6; i++) h.fake.queue(stream(pieces, undefined, { delayMs: 20 }));
    h.fake.queue(completion("plain"));
    const streams = Array.from({ length: 6 }, async (_, i) => {
      const res = await h.post({ ...body, stream: true });
      const reader = res.body!.getReader();
      await reader.read();
      if (i < 2) return void (await reader.cancel()); // two clients leave after the first bytes
      while (!(await reader.read()).done);
    });
    const plain = h.post(body).then((r) => r.json());
    await Promise.all([...streams, plain]);
    expect(Math.max(...seen)).toBeGreaterThanOrEqual(6);
    await expect.poll(() => seen.at(-1), { timeout: 3000 }).toBe(0);
    expect(seen.filter((n) => n < 0)).toEqual([]);
  } finally {
    onInFlight(undefined);
  }
});

test("memory-first from IN_FLIGHT.heavy requests on, V8's sizing again only below IN_FLIGHT.light", () => {
  const set: string[] = [];
  const follow = heapPolicy((f) => set.push(f), { young: false, old: false }).inFlight;
  for (let n = 0; n < IN_FLIGHT.heavy; n++) follow(n);
  expect(set).toEqual([]);
  follow(IN_FLIGHT.heavy);
  expect(set).toEqual(["--heap-growing-percent=30", "--semi-space-growth-factor=1"]);
  // Between the two thresholds nothing flaps, on the way down or up again.
  for (let n = IN_FLIGHT.heavy + 50; n >= IN_FLIGHT.light; n--) follow(n);
  follow(IN_FLIGHT.heavy + 1);
  expect(set).toHaveLength(2);
  follow(IN_FLIGHT.light - 1);
  expect(set.slice(2)).toEqual(["--heap-growing-percent=0", `--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`]);
  follow(IN_FLIGHT.heavy - 1);
  expect(set).toHaveLength(4);
});

test("a cache keeping CACHE_HELD.heavy bytes caps the old generation's growth (not the young one's), V8's sizing again below CACHE_HELD.light", () => {
  const set: string[] = [];
  const policy = heapPolicy((f) => set.push(f), { young: false, old: false });
  policy.cacheHeld(CACHE_HELD.heavy - 1);
  expect(set).toEqual([]);
  policy.cacheHeld(CACHE_HELD.heavy);
  expect(set).toEqual(["--heap-growing-percent=30"]);
  policy.cacheHeld(CACHE_HELD.light);
  expect(set).toHaveLength(1);
  // Streams in flight too: the old generation's cap stays while either signal calls for it.
  policy.inFlight(IN_FLIGHT.heavy);
  expect(set.slice(1)).toEqual(["--semi-space-growth-factor=1"]);
  policy.cacheHeld(CACHE_HELD.light - 1);
  expect(set).toHaveLength(2);
  policy.inFlight(IN_FLIGHT.light - 1);
  expect(set.slice(2)).toEqual(["--heap-growing-percent=0", `--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`]);
});

test("an operator's own flag for either generation is left as set", () => {
  const set: string[] = [];
  heapPolicy((f) => set.push(f), { young: true, old: false }).inFlight(IN_FLIGHT.heavy);
  heapPolicy((f) => set.push(f), { young: false, old: true }).inFlight(IN_FLIGHT.heavy);
  heapPolicy((f) => set.push(f), { young: true, old: true }).inFlight(IN_FLIGHT.heavy);
  expect(set).toEqual(["--heap-growing-percent=30", "--semi-space-growth-factor=1"]);
});

test("an operator's own flags are read from node's command line (Node refuses these two in NODE_OPTIONS)", () => {
  const flagsOf = (...nodeFlags: string[]) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          ...nodeFlags,
          "--input-type=module",
          "-e",
          'const m = await import("./dist/src/cli/heap-under-load.js"); console.log(JSON.stringify(m.OPERATOR_FLAGS))',
        ],
        {
          encoding: "utf8",
          env: { ...process.env, NODE_OPTIONS: "" },
        },
      ),
    );
  expect(flagsOf()).toEqual({ young: false, old: false });
  expect(flagsOf("--semi-space-growth-factor=2", "--heap-growing-percent=0")).toEqual({ young: true, old: true });
  expect(flagsOf("--max-semi-space-size=8")).toEqual({ young: true, old: false });
});
