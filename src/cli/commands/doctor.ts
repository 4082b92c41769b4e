/** `gateway doctor [--json] [--offline]`: everything an operator can get wrong, one line per finding; exit 1 when anything is. */
import { isPostgresUrl } from "../../core/database-url.js";
import { dirname } from "node:path";
import type { Command } from "commander";
import { redisOf } from "../../config/config.js";
import type { LoadedConfig } from "../../config/load.js";
import { redisFinding } from "../doctor-redis.js";
import { sealedFinding } from "../doctor-sealed.js";
import type { Finding } from "../doctor-checks.js";
import { configFor, globals } from "./context.js";

const LABEL = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;

async function configFindings(cmd: Command): Promise<{ loaded?: LoadedConfig; findings: Finding[] }> {
  let loaded: LoadedConfig;
  try {
    loaded = await configFor(cmd);
  } catch (err) {
    return {
      findings: (err as Error).message
        .split("\n")
        .filter((l) => !/^\s/.test(l))
        .map((message) => ({ check: "config", status: "fail", message })),
    };
  }
  const findings: Finding[] = [
    { check: "config", status: "ok", message: loaded.file ? `${loaded.file} is valid` : "no config file: zero-config (provider keys from the environment)" },
  ];
  for (const line of loaded.unset ?? []) findings.push({ check: "config", status: "fail", message: line });
  return { loaded, findings };
}

async function run(cmd: Command, offline: boolean): Promise<Finding[]> {
  const { loaded, findings } = await configFindings(cmd);
  if (!loaded) return findings;
  // Loaded here so other commands start without the provider and HTTP stack.
  const [{ loadProviders }, checks] = await Promise.all([import("../../plugin/load.js"), import("../doctor-checks.js")]);
  const { config } = loaded;
  try {
    const instances = await loadProviders(config, process.env, loaded.file ? dirname(loaded.file) : process.cwd());
    findings.push(...(await checks.providerFindings(checks.configuredInstances(config, instances), offline, config.server.upstream)));
  } catch (err) {
    findings.push({ check: "providers", status: "fail", message: (err as Error).message });
  }
  findings.push(...(isPostgresUrl(config.database) ? await checks.postgresFindings(config.database) : checks.databaseFindings(config.database)));
  const sealed = await sealedFinding(config.database, process.env);
  if (sealed) findings.push(sealed);
  const redis = await redisFinding(redisOf(config, process.env));
  if (redis) findings.push(redis);
  findings.push(...(await (await import("../doctor-mcp.js")).mcpFindings(config, offline)));
  findings.push(await checks.portFinding(config.server.host, config.server.port, config.database));
  return findings;
}

export function doctorCommand(program: Command): void {
  program
    .command("doctor")
    .description("check the config, every provider's key (live), the database and the port; exit 1 when anything is wrong")
    .option("--offline", "check that keys are present without calling the providers")
    .action(async (opts: { offline?: boolean }, cmd: Command) => {
      const findings = await run(cmd, opts.offline === true);
      const failed = findings.filter((f) => f.status === "fail").length;
      process.stdout.write(
        globals(cmd).json
          ? `${JSON.stringify({ ok: failed === 0, findings }, null, 2)}\n`
          : `${findings.map((f) => `${LABEL[f.status]}  ${f.check}: ${f.message}`).join("\n")}\n`,
      );
      if (failed) throw new Error(`${failed} problem${failed === 1 ? "" : "s"} found`);
    });
}
