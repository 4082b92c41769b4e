/**
 * Prompt-cache affinity (docs/limits.md, "Prompt-cache affinity"): the turns of one
 * conversation go to the endpoint that served its last turn while that endpoint is healthy,
 * so the provider's prompt cache for the conversation's prefix hits. A conversation is named
 * by a key of the account, the catalog model and the first of: the request's
 * `prompt_cache_key`, its `user`, or its prompt prefix (`prefixOf`). The pins are an LRU in
 * this process's memory, bounded in entries and idle time (docs/fleet.md says why not Redis).
 */
import { createHash } from "node:crypto";
import type { Route, RoutedEndpoint } from "../catalog/catalog.js";
import type { ChatMessage, ContentPart } from "../core/chat-request.js";

/** Conversations remembered at most (about 150 bytes each), and how long an idle one is. */
const MAX_PINS = 100_000;
const IDLE_MS = 60 * 60_000;
/** Characters of the prompt prefix, and of a `prompt_cache_key` or `user`, that name a conversation. */
const PREFIX_CHARS = 8192;
const ID_CHARS = 256;

/** What the pipeline reads of a request: chat's internal form; an embeddings body has none of it. */
interface Conversation {
  messages?: ChatMessage[];
  user?: string | undefined;
  prompt_cache_key?: string | undefined;
}

/** One request's affinity: its key, and once served whether it went where its conversation was. */
export interface AffinityTicket {
  key: string;
  result: "hit" | "miss" | null;
}

interface Pin {
  provider: string;
  model: string;
  until: number;
}

/** A part's text, or an image's URL; nothing for a part of another kind a translation may have made. */
function partText(p: ContentPart): string {
  const loose = p as { text?: unknown; image_url?: { url?: unknown } };
  const s = typeof loose.text === "string" ? loose.text : loose.image_url?.url;
  return typeof s === "string" ? s : "";
}

/**
 * The prompt prefix of a conversation: every message up to and including the first user
 * message (the system and developer prompts before it), each as its role and its text (an
 * image as its URL), at most PREFIX_CHARS in all. Later turns only append messages, so every
 * turn of a conversation has the prefix of its first.
 */
function prefixOf(messages: ChatMessage[]): string {
  let out = "";
  for (const m of messages) {
    out += `\u0000${m.role}\u0000`;
    const c = m.content;
    if (typeof c === "string") out += c.slice(0, Math.max(0, PREFIX_CHARS - out.length));
    else if (c) for (const p of c) out += partText(p).slice(0, Math.max(0, PREFIX_CHARS - out.length));
    if (m.role === "user" || out.length >= PREFIX_CHARS) break;
  }
  return out;
}

/** The request's ticket, or undefined when there is nothing to choose (one endpoint) or no conversation (embeddings). */
export function affinityTicket(account: string | null, route: Route, body: object): AffinityTicket | undefined {
  const req = body as Conversation;
  if (route.endpoints.length < 2 || !req.messages) return undefined;
  const named =
    req.prompt_cache_key !== undefined
      ? `k${req.prompt_cache_key.slice(0, ID_CHARS)}`
      : req.user !== undefined
        ? `u${req.user.slice(0, ID_CHARS)}`
        : `p${prefixOf(req.messages)}`;
  const key = createHash("sha256")
    .update(`${account ?? ""}\u0000${route.model.id}\u0000`)
    .update(named)
    .digest("base64url");
  return { key, result: null };
}

/** The conversations' endpoints: a Map kept in use order, the oldest dropped past MAX_PINS. */
export class AffinityPins {
  private pins = new Map<string, Pin>();

  constructor(
    private max = MAX_PINS,
    private idleMs = IDLE_MS,
  ) {}

  /**
   * `ordered` with the conversation's endpoint moved first when `healthy` says it may serve
   * now; never ahead of a BYOK endpoint when it is a platform one (BYOK-first stays).
   */
  first(ordered: RoutedEndpoint[], ticket: AffinityTicket | undefined, healthy: (e: RoutedEndpoint) => boolean, now: number): RoutedEndpoint[] {
    const pin = ticket && this.live(ticket.key, now);
    if (!pin) return ordered;
    const i = ordered.findIndex((e) => e.provider === pin.provider && e.model === pin.model);
    if (i <= 0 || ordered[i]!.byok !== ordered[0]!.byok || !healthy(ordered[i]!)) return ordered;
    return [ordered[i]!, ...ordered.slice(0, i), ...ordered.slice(i + 1)];
  }

  /** The request was served by `e`: the conversation stays there (a hit if it was there already). */
  served(ticket: AffinityTicket | undefined, e: RoutedEndpoint, now: number): void {
    if (!ticket) return;
    const pin = this.live(ticket.key, now);
    ticket.result = pin?.provider === e.provider && pin.model === e.model ? "hit" : "miss";
    this.pins.delete(ticket.key);
    this.pins.set(ticket.key, { provider: e.provider, model: e.model, until: now + this.idleMs });
    if (this.pins.size > this.max) this.pins.delete(this.pins.keys().next().value!);
  }

  private live(key: string, now: number): Pin | undefined {
    const pin = this.pins.get(key);
    if (pin && pin.until <= now) return void this.pins.delete(key);
    return pin;
  }
}
