/**
 * The checks of `gateway doctor` (docs/cli.md), each returning findings: one line each,
 * `ok`, `warn` (worth knowing, nothing broken) or `fail` (exit 1). Nothing here writes: the
 * database is opened read-only, the port is bound and released at once.
 */
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import Database from "better-sqlite3";
import type { Config } from "../config/config.js";
import type { ProviderInstance } from "../plugin/load.js";
import { checkKey, type KeyCheck } from "../upstream/provider-check.js";
import type { PoolSettings } from "../upstream/upstream.js";
import { fileModeWarning } from "../store/sqlite/files.js";
import { databaseHolder } from "../store/sqlite/lock.js";

type Level = "ok" | "warn" | "fail";

export interface Finding {
  check: string;
  status: Level;
  message: string;
}

const keyless = (i: ProviderInstance) => i.plugin.describe?.keyless === true;

/** What makes `doctor` exit 1: a key refused, a base URL that answers 404 (docs/cli.md), a provider out of reach. */
const FAILS = new Set<KeyCheck["status"]>(["rejected", "not_found", "unreachable"]);

/** The instances an operator set up: the configured ones, or (zero-config) those with a key from the environment. */
export function configuredInstances(config: Config, instances: Map<string, ProviderInstance>): ProviderInstance[] {
  const ids = Object.keys(config.providers);
  if (ids.length) return ids.flatMap((id) => instances.get(id) ?? []);
  return [...instances.values()].filter((i) => i.settings.apiKey !== undefined);
}

export async function providerFindings(chosen: ProviderInstance[], offline: boolean, pool: PoolSettings): Promise<Finding[]> {
  const findings = await Promise.all(
    chosen.map(async (i): Promise<Finding> => {
      const check = `provider ${i.settings.id}`;
      const envVar = i.plugin.defaults.apiKeyEnv;
      if (i.settings.apiKey === undefined && !keyless(i)) {
        return { check, status: "fail", message: `no key: set providers.${i.settings.id}.apiKey${envVar ? ` or ${envVar}` : ""}` };
      }
      if (offline) return { check, status: "ok", message: `${keyless(i) ? "no key needed" : "key present"} (not checked live: --offline)` };
      const r = await checkKey(i, pool);
      const status: Level = r.status === "accepted" ? "ok" : FAILS.has(r.status) ? "fail" : "warn";
      const what = keyless(i) ? `${i.settings.baseUrl}: ` : "key ";
      return {
        check,
        status,
        message: `${what}${r.detail}${r.status === "rejected" ? `: fix providers.${i.settings.id}.apiKey${envVar ? ` or ${envVar}` : ""}` : ""}`,
      };
    }),
  );
  if (chosen.length === 0) {
    findings.push({
      check: "providers",
      status: "fail",
      message: "no provider configured and no provider key in the environment: every chat request would get 404 (run gateway init)",
    });
  }
  return findings;
}

export function databaseFindings(db: string): Finding[] {
  const check = "database";
  if (!existsSync(db)) return [{ check, status: "ok", message: `${db} does not exist yet; gateway serve creates it (mode 0600)` }];
  const findings: Finding[] = [];
  try {
    const conn = new Database(db, { readonly: true, fileMustExist: true });
    try {
      const result = conn.pragma("integrity_check", { simple: true });
      findings.push(
        result === "ok"
          ? { check, status: "ok", message: `${db} is reachable and passes PRAGMA integrity_check` }
          : { check, status: "fail", message: `${db} fails PRAGMA integrity_check: ${String(result)}; restore it from a backup` },
      );
    } finally {
      conn.close();
    }
  } catch (err) {
    findings.push({ check, status: "fail", message: `${db} cannot be read: ${(err as Error).message}` });
  }
  const modes = fileModeWarning(db);
  findings.push(
    modes
      ? { check: "file modes", status: "fail", message: modes.replace(/^warning: /, "") }
      : { check: "file modes", status: "ok", message: "database files are the owner's alone" },
  );
  const holder = databaseHolder(db);
  if (holder !== undefined) findings.push({ check, status: "ok", message: `in use by gateway serve (PID ${holder})` });
  return findings;
}

/** PostgreSQL: reachable, and at which schema version (a newer gateway migrates at `serve` or `gateway db migrate`). */
export async function postgresFindings(url: string): Promise<Finding[]> {
  const check = "database";
  const { createPool } = await import("../store/pg/db.js");
  const { pgMigrations } = await import("../store/pg/migrations.js");
  const pool = createPool(url, 1);
  try {
    const { rows } = await pool
      .query<{ v: number | null }>("SELECT (SELECT MAX(version) FROM gateway_migrations) AS v")
      .catch(async () => ({ rows: [{ v: null }] }));
    await pool.query("SELECT 1");
    const v = rows[0]?.v ?? 0;
    return [
      {
        check,
        status: "ok",
        message: `PostgreSQL is reachable; schema version ${v} of ${pgMigrations.length}${v < pgMigrations.length ? " (gateway serve or gateway db migrate applies the rest)" : ""}`,
      },
    ];
  } catch (err) {
    return [{ check, status: "fail", message: `PostgreSQL cannot be reached: ${(err as Error).message}` }];
  } finally {
    await pool.end().catch(() => undefined);
  }
}

export async function portFinding(host: string, port: number, db: string): Promise<Finding> {
  const check = "port";
  const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const probe = createServer();
    probe.once("error", (err) => resolve(err));
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
  if (!error) return { check, status: "ok", message: `${host}:${port} is free` };
  const holder = databaseHolder(db);
  if (error.code === "EADDRINUSE" && holder !== undefined)
    return { check, status: "ok", message: `${host}:${port} is in use, presumably by the gateway serve running on this database (PID ${holder})` };
  if (error.code === "EADDRINUSE")
    return { check, status: "fail", message: `${host}:${port} is in use by another program: set server.port, or start with --port ${port + 1}` };
  return { check, status: "fail", message: `cannot listen on ${host}:${port}: ${error.code ?? error.message}` };
}
