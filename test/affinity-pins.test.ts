/**
 * The pins of prompt-cache affinity (src/upstream/affinity.ts) on their own: the conversation
 * key, the LRU's cap and idle time, and the rules that keep health and BYOK-first ahead of
 * affinity. What a client sees is test/affinity.test.ts.
 */
import { describe, expect, test } from "vitest";
import type { Route, RoutedEndpoint } from "../src/catalog/catalog.js";
import { affinityTicket, AffinityPins, type AffinityTicket } from "../src/upstream/affinity.js";

const SYSTEM = { role: "system", content: "You are a careful assistant. ".repeat(40) };

/** Turn `n` (1-based) of a conversation: the system prompt, then n user turns with the answers between. */
function turn(n: number, topic = "the tides"): unknown[] {
  const messages: unknown[] = [SYSTEM];
  for (let i = 1; i <= n; i++) {
    if (i > 1) messages.push({ role: "assistant", content: `answer ${i - 1}` });
    messages.push({ role: "user", content: i === 1 ? `Tell me about ${topic}.` : `And then ${i}?` });
  }
  return messages;
}

describe("the pins", () => {
  const at = (provider: string) => ({ provider, model: "m", byok: false }) as RoutedEndpoint;
  const ticket = (key: string): AffinityTicket => ({ key, result: null });
  const firstOf = (pins: AffinityPins, key: string, now: number) => pins.first([at("a"), at("b")], ticket(key), () => true, now)[0]!.provider;

  test("an LRU: past its cap the least recently served conversation is forgotten", () => {
    const pins = new AffinityPins(2, 60_000);
    for (const key of ["k1", "k2"]) pins.served(ticket(key), at("b"), 0);
    pins.served(ticket("k1"), at("b"), 1); // k1 used again: k2 is now the oldest
    pins.served(ticket("k3"), at("b"), 2);
    expect([firstOf(pins, "k1", 3), firstOf(pins, "k2", 3), firstOf(pins, "k3", 3)]).toEqual(["b", "a", "b"]);
  });

  test("health wins: an endpoint not ready is not moved first; a platform endpoint never ahead of a BYOK one", () => {
    const pins = new AffinityPins(10, 60_000);
    pins.served(ticket("k"), at("b"), 0);
    expect(pins.first([at("a"), at("b")], ticket("k"), (e) => e.provider !== "b", 1)[0]!.provider).toBe("a");
    expect(pins.first([{ ...at("a"), byok: true }, at("b")], ticket("k"), () => true, 1)[0]!.provider).toBe("a");
    expect(firstOf(pins, "k", 1)).toBe("b");
  });

  test("an idle conversation is forgotten after the TTL; each turn extends it", () => {
    const pins = new AffinityPins(10, 1000);
    pins.served(ticket("k"), at("b"), 0);
    pins.served(ticket("k"), at("b"), 900);
    expect(firstOf(pins, "k", 1800)).toBe("b");
    expect(firstOf(pins, "k", 1900)).toBe("a");
  });

  test("the key: a conversation's later turn has its first turn's key; another account's does not", () => {
    const route = { model: { id: "acme/chat" }, endpoints: [at("a"), at("b")] } as unknown as Route;
    const key = (account: string, messages: unknown[], extra: object = {}) => affinityTicket(account, route, { messages, ...extra })!.key;
    expect(key("acme", turn(7))).toBe(key("acme", turn(1)));
    expect(key("acme", turn(1, "ships"))).not.toBe(key("acme", turn(1)));
    expect(key("globex", turn(1))).not.toBe(key("acme", turn(1)));
    expect(key("acme", turn(1, "x"), { user: "u" })).toBe(key("acme", turn(3, "y"), { user: "u" }));
    // Only the first 8,192 characters of the prefix count, however long the prompt.
    const long = (tail: string) => [
      { role: "system", content: "x".repeat(9000) + tail },
      { role: "user", content: "hi" },
    ];
    expect(key("acme", long("a"))).toBe(key("acme", long("b")));
    const parts = (url: string) => [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url } },
        ],
      },
    ];
    expect(key("acme", parts("https://a.example/1.png"))).not.toBe(key("acme", parts("https://a.example/2.png")));
    expect(affinityTicket("acme", { ...route, endpoints: [at("a")] }, { messages: turn(1) })).toBeUndefined();
  });
});
