/**
 * A webhook receiver on loopback (node:http), as an operator's alert endpoint would be
 * (docs/alerts.md): it keeps every POST's raw body and `X-Gateway-Signature`, and answers each
 * with the next of `statuses` (the last repeats), or never when that is "hang".
 */
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadSecret } from "../../src/access/byok.js";
import { sealWebhookSecret } from "../../src/alerts/secret.js";
import { addWebhook } from "../../src/operations/alert-webhooks.js";
import type { TestGateway } from "./gateway.js";
import { recordSecret } from "./secrets.js";

export interface Received {
  body: string;
  signature: string | undefined;
  at: number;
}

export interface Receiver {
  url: string;
  got: Received[];
  closedUnanswered(): number;
  bodies(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function receiver(statuses: Array<number | "hang"> = [200]): Promise<Receiver> {
  const got: Received[] = [];
  let closedUnanswered = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({ body: Buffer.concat(chunks).toString("utf8"), signature: req.headers["x-gateway-signature"] as string | undefined, at: Date.now() });
      const status = statuses[Math.min(got.length - 1, statuses.length - 1)]!;
      if (status === "hang") return void res.on("close", () => closedUnanswered++);
      res.writeHead(status, { "content-type": "text/plain" }).end("thanks");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    closedUnanswered: () => closedUnanswered,
    bodies: () => got.map((g) => JSON.parse(g.body) as Record<string, unknown>),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** The signature a receiver checks: HMAC-SHA256 of the raw body with the webhook's secret. */
export const verify = (secret: string, r: Received): boolean => r.signature === `sha256=${createHmac("sha256", secret).update(r.body).digest("hex")}`;

/**
 * Registers a webhook on a test gateway through the same operation as `gateway alerts add`,
 * sealed with that gateway's secret (helpers/gateway.ts: GATEWAY_SECRET "test-secret"); returns
 * its signing secret (the one given, else the generated one).
 */
export async function hook(g: TestGateway, url: string, account: string | null, secret?: string): Promise<string> {
  const sealKey = loadSecret(g.db, { GATEWAY_SECRET: "test-secret" });
  const by = { actor: "test", ip: null };
  const added = await addWebhook(g.store, (id, plain) => sealWebhookSecret(sealKey, id, plain), { url, secret, account }, Date.now(), by);
  const plain = secret ?? added.secret!;
  recordSecret(plain);
  g.server.gateway.alerts.invalidate(); // as the dashboard's API does after a write through this process
  return plain;
}
