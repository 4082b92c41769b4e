/** Config: the example file is valid, interpolation, defaults, and errors that name the key. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, test } from "vitest";
import { parseConfig } from "../src/config/config.js";
import { loadConfig } from "../src/config/load.js";
import { loadProviders } from "../src/plugin/load.js";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";

describe("config", () => {
  test("gateway.config.example.yaml is valid and every provider plugin in it loads", async () => {
    const text = readFileSync("gateway.config.example.yaml", "utf8");
    // Every variable it references is set (an unset one is an error); the ones asserted below get known values.
    const names = [...text.matchAll(/\$\{([A-Z_0-9]+)\}/g)].map((m) => m[1]!);
    const env = { ...Object.fromEntries(names.map((n) => [n, `v-${n}`])), OPENAI_API_KEY: "sk-o", AWS_ACCESS_KEY_ID: "AKIA", AWS_SECRET_ACCESS_KEY: "s" };
    const config = parseConfig(parse(text), env);
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
    expect(config.server.upstream).toEqual({
      maxEventBytes: 1048576,
      maxResponseBytes: 33554432,
      maxConnections: 10000,
      http2: true,
      streamsPerConnection: 100,
    });
    expect(config.server.timeouts.stream).toBe(600000);
    expect(() => parseConfig({ retry: { maxElapsedTime: 120001 } })).toThrow(/retry\.maxElapsedTime/);
  });

  test("an invalid value or unknown key names its path", () => {
    expect(() => parseConfig({ server: { port: -1 } })).toThrow(/server\.port/);
    expect(() => parseConfig({ limits: { key: { requests: 0, window: 60 } } })).toThrow(/limits\.key\.requests/);
    expect(() => parseConfig({ bogus: true })).toThrow(/bogus|Unrecognized/);
    expect(() => parseConfig({ models: [{ id: "no-vendor", endpoints: [{ provider: "openai", model: "x" }] }] })).toThrow(/models\.0\.id/);
  });

  test("server.trustProxy: a boolean, a hop count, or proxy addresses and CIDRs checked at load", () => {
    expect(parseConfig({ server: { trustProxy: ["10.0.0.0/8", "loopback", "::1"] } }).server.trustProxy).toEqual(["10.0.0.0/8", "loopback", "::1"]);
    expect(parseConfig({ server: { trustProxy: 2 } }).server.trustProxy).toBe(2);
    expect(() => parseConfig({ server: { trustProxy: ["10.0.0.1", "10.0.0.300"] } })).toThrow(/server\.trustProxy\.1: Expected an IP address/);
    expect(() => parseConfig({ server: { trustProxy: "yes" } })).toThrow(/server\.trustProxy/);
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

test("${VAR} works inside YAML flow maps, as docs/cli.md writes it", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "gateway.config.yaml"), "providers:\n  openai:   { apiKey: ${OPENAI_API_KEY}, baseUrl: ${BASE:-http://127.0.0.1:9}/v1 }\n");
  const { config } = await loadConfig(undefined, { OPENAI_API_KEY: "sk-flow" }, dir);
  expect(config.providers.openai).toEqual({ apiKey: "sk-flow", baseUrl: "http://127.0.0.1:9/v1" });
});

describe("config problems: one line each, with file, line, path and what is expected", () => {
  const load = async (yaml: string, env: NodeJS.ProcessEnv = {}) => {
    const dir = tempDir();
    writeFileSync(join(dir, "gateway.config.yaml"), yaml);
    const cwd = process.cwd();
    process.chdir(dir); // the file is shown relative to where the operator runs the command
    try {
      return await loadConfig(undefined, env, dir).then(
        () => [],
        (err: Error) => err.message.split("\n"),
      );
    } finally {
      process.chdir(cwd);
    }
  };

  test("a bad value: its line, its path, the expected range and what was given", async () => {
    const lines = await load(["database: ./g.db", "server:", "  host: 127.0.0.1", "  port: abc", ""].join("\n"));
    expect(lines).toEqual(['gateway.config.yaml:4: server.port: expected an integer from 0 to 65535, got "abc"']);
  });

  test("${VAR} whose variable is unset: named with its line; `serve` refuses to start, admin commands go on", async () => {
    assertBuilt();
    const dir = tempDir();
    const yaml = ["server:", "  port: 0", "providers:", "  openai:", "    apiKey: ${OPENAI_API_KEY}", "  groq: { apiKey: '${GROQ_API_KEY:-}' }", ""].join("\n");
    writeFileSync(join(dir, "gateway.config.yaml"), yaml);
    const { unset } = await loadConfig(undefined, {}, dir);
    expect(unset).toEqual([expect.stringMatching(/gateway\.config\.yaml:5: providers\.openai\.apiKey: \$\{OPENAI_API_KEY\} is not set/)]);
    expect((await loadConfig(undefined, { OPENAI_API_KEY: "sk-set" }, dir)).unset).toEqual([]);
    // `${VAR:-}` makes it optional: unset, the key is left out as if not written.
    expect(parseConfig({ providers: { groq: { apiKey: "${GROQ_API_KEY:-}" } } }, {}).providers.groq).toEqual({});
    expect(() => parseConfig({ providers: { openai: { apiKey: "${OPENAI_API_KEY}" } } }, {})).toThrow(/OPENAI_API_KEY\} is not set/);

    const serve = await gateway(["serve", "--port", "0"], { cwd: dir });
    expect(serve.exitCode).toBe(2);
    expect(serve.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^error: gateway\.config\.yaml:5: providers\.openai\.apiKey: \$\{OPENAI_API_KEY\} is not set/),
    ]);
    expect((await gateway(["keys", "list", "--json"], { cwd: dir })).exitCode).toBe(0);
  });

  test("unknown keys: did-you-mean where close, the known keys otherwise; plugin options still pass", async () => {
    const lines = await load(
      [
        "providers:",
        "  openai: { baseURL: 'http://127.0.0.1:9/v1' }",
        "  azure:",
        "    apikey: k",
        "    apiVersion: 2024-10-21",
        "server:",
        "  prot: 9",
        "  colour: red",
        "models:",
        "  - id: nope",
        "    endpoints: []",
        "",
      ].join("\n"),
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        "gateway.config.yaml:2: providers.openai.baseURL: unknown key (did you mean baseUrl?)",
        "gateway.config.yaml:4: providers.azure.apikey: unknown key (did you mean apiKey?)",
        "gateway.config.yaml:7: server.prot: unknown key (did you mean port?)",
        expect.stringMatching(/^gateway\.config\.yaml:8: server\.colour: unknown key; expected one of host, port, /),
        'gateway.config.yaml:10: models.0.id: expected a vendor/model id, got "nope"',
        "gateway.config.yaml:11: models.0.endpoints: expected at least 1 item(s), got a list",
      ]),
    );
    expect(lines).toHaveLength(6);
    // A plugin's own option (azure apiVersion) is not a problem.
    expect(lines.join("\n")).not.toContain("apiVersion");
  });
});
