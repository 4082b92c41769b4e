/**
 * PostgreSQL out of reach (docs/fleet.md): requests that need money or keys get a 503 in the
 * error shape (`store_unavailable`), never a 500 or a crash; the public routes still answer;
 * when the database returns, so does service. The database is reached through a TCP relay the
 * test cuts, so the shared PostgreSQL server itself is never stopped.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, expectError } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";

/** A TCP relay to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored. */
async function relay(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server;
  const listen = (port = 0) =>
    new Promise<number>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) (sockets.add(s), s.on("close", () => sockets.delete(s)), s.on("error", () => undefined));
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
    });
  const port = await listen();
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
    restore: () => listen(port).then(() => undefined),
  };
}

let fake: FakeUpstream;
let db: TestDatabase;
let gw: TestGateway;
let link: Awaited<ReturnType<typeof relay>>;

beforeAll(async () => {
  fake = await startFakeUpstream(() => completion("ok"));
  db = await createTestDatabase();
  link = await relay(new URL(db.url));
  const via = new URL(db.url);
  via.host = `127.0.0.1:${link.port}`;
  gw = await startGateway({ ...openaiConfig(fake.url), database: via.toString() }, { GATEWAY_SECRET: "test-secret" });
}, 30_000);

afterAll(async () => {
  await gw?.close();
  await fake?.close();
  await db?.drop();
});

const ask = (key: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 10 }),
  });

test("PostgreSQL down: 503 store_unavailable for money and keys, the public routes answer, and service returns with it", async () => {
  const known = await gw.createKey();
  const unknown = await gw.createKey(); // never used: its lookup needs the database
  await gw.addCredits("1");
  const first = await ask(known);
  expect(first.status, await first.clone().text()).toBe(200);
  await link.cut();
  await expectError(await ask(known), 503, "upstream_error", "store_unavailable"); // the hold needs the database
  await expectError(await ask(unknown), 503, "upstream_error", "store_unavailable"); // so does an uncached key
  expect((await fetch(`${gw.url}/v1/health/providers`)).status).toBe(200);
  await link.restore();
  await expect.poll(async () => (await ask(known)).status, { timeout: 10_000 }).toBe(200);
  expect((await ask(unknown)).status).toBe(200);
}, 40_000);
