/**
 * What `gateway db copy` does with sealed values (docs/fleet.md "Moving a single-file install"):
 * each is opened with the source's secret and sealed again with the target's (GATEWAY_SECRET,
 * which a PostgreSQL fleet needs). The source's secret is found, not asked for: the `<db>.secret`
 * file beside the SQLite file when there is one (how a single-file install seals by default),
 * else GATEWAY_SECRET itself (a source that ran with it). A value neither opens stops the copy
 * before anything is written, naming what it is and the fix; no value ever leaves in clear.
 */
import { existsSync } from "node:fs";
import { readSecretFile, secretFileOf } from "../access/byok.js";
import { openSealed, sealAgain, sealedSummary } from "../access/sealed.js";
import type { Resealer } from "../store/copy.js";
import type { SealedRow } from "../store/sealed.js";

/** `target`: the key GATEWAY_SECRET gives (access/byok.ts loadSecret). */
export function resealFor(sourceFile: string, target: Buffer): Resealer {
  const file = secretFileOf(sourceFile);
  const sources = [...(existsSync(file) ? [{ name: file, secret: readSecretFile(file) }] : []), { name: "GATEWAY_SECRET", secret: target }];
  const open = (r: SealedRow) => sources.reduce<string | undefined>((found, s) => found ?? openSealed(s.secret, r), undefined);
  return (rows) => {
    const shut = rows.filter((r) => open(r) === undefined);
    if (shut.length)
      throw new Error(
        refusal(
          shut,
          sources.map((s) => s.name),
        ),
      );
    return (row) => sealAgain(target, row, open(row)!);
  };
}

function refusal(shut: SealedRow[], tried: string[]): string {
  return (
    `${sealedSummary(shut)} of the source cannot be opened with ${tried.join(" nor ")}; nothing was copied. ` +
    "Run db copy with GATEWAY_SECRET set to the secret the source ran with, or with the source's .secret file beside it. " +
    "A value no secret opens was already unreadable in the source: remove it there ('gateway byok remove <provider> --account <account>', " +
    "'gateway alerts remove <id>'), copy, and set it again on the target"
  );
}
