/**
 * A fake upstream provider on loopback. It records every request (so tests assert what the
 * gateway sent) and answers from a script: JSON, an SSE event list (optionally cut short),
 * raw bytes, a status with headers, a hang, or a connection reset.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { recordCredentialHeaders } from "./secrets.js";

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
}

export type SseEvent = string | { event?: string; data: unknown };

export type Reply =
  | {
      status?: number;
      headers?: Record<string, string>;
      json: unknown;
      waitFor?: Promise<unknown>;
      /** Wait before answering (a slow upstream). */ delayMs?: number;
    }
  | {
      status?: number;
      headers?: Record<string, string>;
      sse: SseEvent[];
      delayMs?: number;
      done?: boolean;
      cut?: boolean;
      /** The answer is complete but the response is not ended (until the fake closes). */
      holdOpen?: boolean;
    }
  | { status?: number; headers?: Record<string, string>; raw: Uint8Array | string; chunks?: Uint8Array[]; delayMs?: number }
  | { hang: true }
  | { reset: true };

export interface FakeUpstream {
  url: string;
  requests: Recorded[];
  /** Replies used in order, one per request; when empty, `fallback` answers. */
  queue(...replies: Reply[]): void;
  fallback: (req: Recorded) => Reply;
  /** Resolves when a request's response was closed by the other side (client abort). */
  aborted: number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function frame(e: SseEvent): string {
  if (typeof e === "string") return `data: ${e}\n\n`;
  return `${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`;
}

async function send(res: ServerResponse, reply: Reply, fake: FakeUpstream): Promise<void> {
  if ("hang" in reply) return; // never answers; the socket stays open
  if ("reset" in reply) {
    res.socket?.destroy();
    return;
  }
  res.on("close", () => {
    if (!res.writableEnded) fake.aborted++;
  });
  const status = reply.status ?? 200;
  if ("json" in reply) {
    if (reply.waitFor) await reply.waitFor;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "application/json", ...reply.headers });
    res.end(JSON.stringify(reply.json));
    return;
  }
  if ("raw" in reply) {
    res.writeHead(status, { "content-type": "application/octet-stream", ...reply.headers });
    for (const c of reply.chunks ?? [typeof reply.raw === "string" ? Buffer.from(reply.raw) : reply.raw]) {
      if (res.destroyed) return;
      res.write(c);
      if (reply.delayMs) await sleep(reply.delayMs);
    }
    res.end();
    return;
  }
  res.writeHead(status, { "content-type": "text/event-stream", "cache-control": "no-cache", ...reply.headers });
  for (const e of reply.sse) {
    if (res.destroyed) return;
    res.write(frame(e));
    if (reply.delayMs) await sleep(reply.delayMs);
  }
  if (reply.cut) {
    res.socket?.destroy(); // the connection drops mid-stream
    return;
  }
  if (reply.done !== false) res.write("data: [DONE]\n\n");
  if (!reply.holdOpen) res.end();
}

export async function startFakeUpstream(
  fallback: (req: Recorded) => Reply = () => ({ status: 500, json: { error: "no reply scripted" } }),
): Promise<FakeUpstream> {
  const replies: Reply[] = [];
  const fake: FakeUpstream = {
    url: "",
    requests: [],
    queue: (...r) => void replies.push(...r),
    fallback,
    aborted: 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* keep the raw text */
    }
    const recorded: Recorded = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, raw, body };
    fake.requests.push(recorded);
    recordCredentialHeaders(req.headers); // the platform and BYOK keys the gateway sent: never in its log

    await send(res, replies.shift() ?? fake.fallback(recorded), fake);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
