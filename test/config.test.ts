/** Config: the example file is valid, interpolation, defaults, and errors that name the key. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, test } from "vitest";
import { loadConfig, parseConfig } from "../src/config.js";
import { loadProviders } from "../src/plugins.js";
import { tempDir } from "./helpers/cli.js";

describe("config", () => {
  test("gateway.config.example.yaml is valid and every provider plugin in it loads", async () => {
    const env = { OPENAI_API_KEY: "sk-o", AWS_ACCESS_KEY_ID: "AKIA", AWS_SECRET_ACCESS_KEY: "s" };
    const config = parseConfig(parse(readFileSync("gateway.config.example.yaml", "utf8")), env);
    expect(config.server.port).toBe(8787);
    expect(config.providers.bedrock?.apiKey).toBe("AKIA:s");
    const instances = await loadProviders(config, env, process.cwd());
    expect(instances.get("local")?.plugin.name).toBe("openai-compatible");
    expect(instances.get("openai")?.settings.apiKey).toBe("sk-o");
  });

  test("defaults, ${VAR:-default}, and a database path relative to the config file", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "gateway.config.yaml"), "database: data/g.db\nserver:\n  port: ${PORT:-9999}\n");
    const { config, file } = await loadConfig(undefined, {}, join(dir, "sub"));
    expect(file).toBe(join(dir, "gateway.config.yaml"));
    expect(config.server.port).toBe(9999);
    expect(config.database).toBe(join(dir, "data/g.db"));
    expect(config.limits.key).toEqual({ requests: 600, window: 60 });
    expect(config.retry).toEqual({ initialInterval: 500, maxInterval: 30000, exponent: 1.5, maxElapsedTime: 10000 });
    expect(config.server.upstream).toEqual({ maxEventBytes: 1048576, maxResponseBytes: 33554432 });
    expect(config.server.timeouts.stream).toBe(600000);
    expect(() => parseConfig({ retry: { maxElapsedTime: 120001 } })).toThrow(/retry\.maxElapsedTime/);
  });

  test("an invalid value or unknown key names its path", () => {
    expect(() => parseConfig({ server: { port: -1 } })).toThrow(/server\.port/);
    expect(() => parseConfig({ limits: { key: { requests: 0, window: 60 } } })).toThrow(/limits\.key\.requests/);
    expect(() => parseConfig({ bogus: true })).toThrow(/bogus|Unrecognized/);
    expect(() => parseConfig({ models: [{ id: "no-vendor", endpoints: [{ provider: "openai", model: "x" }] }] })).toThrow(/models\.0\.id/);
  });

  test("an unknown plugin fails loading with its name", async () => {
    await expect(loadProviders(parseConfig({ providers: { foo: {} } }), {}, process.cwd())).rejects.toThrow(/foo/);
  });

  test("zero-config: only providers whose key variable is set get a platform key; Bedrock needs id and secret", async () => {
    const instances = await loadProviders(parseConfig({}), { GROQ_API_KEY: "gsk", AWS_ACCESS_KEY_ID: "AKIA" }, process.cwd());
    const keyed = [...instances.values()].filter((i) => i.settings.apiKey).map((i) => i.settings.id);
    expect(keyed).toEqual(["groq"]);
    const both = await loadProviders(parseConfig({}), { AWS_ACCESS_KEY_ID: "AKIA", AWS_SECRET_ACCESS_KEY: "s", AWS_REGION: "eu-west-1" }, process.cwd());
    expect(both.get("bedrock")?.settings).toMatchObject({ apiKey: "AKIA:s", baseUrl: "https://bedrock-runtime.eu-west-1.amazonaws.com" });
  });
});

test("${VAR} works inside YAML flow maps, as contract.md writes it", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "gateway.config.yaml"), "providers:\n  openai:   { apiKey: ${OPENAI_API_KEY}, baseUrl: ${BASE:-http://127.0.0.1:9}/v1 }\n");
  const { config } = await loadConfig(undefined, { OPENAI_API_KEY: "sk-flow" }, dir);
  expect(config.providers.openai).toEqual({ apiKey: "sk-flow", baseUrl: "http://127.0.0.1:9/v1" });
});
