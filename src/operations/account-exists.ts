/**
 * Every command that names an account refuses one that does not exist, so a typo
 * (`--account defualt`) neither creates an account nor reads as an empty one
 * (docs/cli.md "Accounts"). `default` is implicit: it always exists.
 */
import { editDistance } from "../config/diagnostics.js";
import { notFound } from "../core/errors.js";
import type { Store } from "../store/index.js";

/** `creatable`: the command takes `--create`, so the message says so. */
export async function accountMustExist(store: Store, account: string, creatable = false): Promise<void> {
  if (account === "default" || (await store.balance(account)) !== undefined) return;
  const known = ["default", ...(await store.accounts()).map((a) => a.id).filter((id) => id !== "default")];
  const near = closest(account, known);
  throw notFound(
    `account '${account}' does not exist (did you mean '${near}'?); check the name${creatable ? ", or add --create to create it" : ""}`,
    "account_not_found",
  );
}

/** The known account fewest edits away; the first of equals (`default` leads the list). */
function closest(name: string, known: string[]): string {
  let best = known[0]!;
  let bestDistance = Infinity;
  for (const id of known) {
    const d = editDistance(name.toLowerCase(), id.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [id, d];
  }
  return best;
}
