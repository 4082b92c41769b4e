/**
 * `gateway doctor`'s look at sealed values (docs/cli.md): stored BYOK keys and webhook secrets
 * that the current secret (GATEWAY_SECRET, else `<db>.secret`) cannot open are a FAIL, as
 * `serve` says at start. Read only: no secret file is created, the database is not migrated.
 * Nothing stored sealed, nothing said.
 */
import { existingSecret } from "../access/byok.js";
import { sealedSummary, unopenedLine } from "../access/sealed.js";
import { readSealed } from "../store/sealed.js";
import type { Finding } from "./doctor-checks.js";

export async function sealedFinding(database: string, env: NodeJS.ProcessEnv): Promise<Finding | undefined> {
  const check = "sealed values";
  let rows;
  try {
    rows = await readSealed(database);
  } catch {
    return undefined; // a database that cannot be read is the database check's finding
  }
  if (rows.length === 0) return undefined;
  let secret;
  try {
    secret = existingSecret(database, env);
  } catch (err) {
    return { check, status: "fail", message: (err as Error).message };
  }
  if (!secret)
    return { check, status: "fail", message: `${sealedSummary(rows)} stored, and no secret to open them: set GATEWAY_SECRET to the one they were sealed with` };
  const shut = unopenedLine(rows, secret);
  return shut ? { check, status: "fail", message: shut } : { check, status: "ok", message: `${sealedSummary(rows)}: all open with the current secret` };
}
