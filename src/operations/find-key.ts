/**
 * The key a person names (`keys revoke|update <id|name> [--account A]`, the dashboard's key
 * routes): by id anywhere, or by name, which is unique per account only (docs/cli.md "Keys").
 */
import { notFound, UsageError } from "../core/errors.js";
import type { KeyRecord, Store } from "../store/index.js";

/**
 * `account`: only that account's key. Without it, a name that several accounts use is bad usage
 * naming them (the CLI's exit 2): picking one would revoke or change someone else's key.
 */
export async function findNamedKey(store: Store, idOrName: string, account: string | undefined): Promise<KeyRecord> {
  const key = await store.findKey(idOrName, account);
  if (key) return key;
  if (account === undefined) {
    const accounts = [...new Set((await store.listKeys()).filter((k) => k.name === idOrName).map((k) => k.account))];
    if (accounts.length > 1)
      throw new UsageError(
        `accounts ${accounts.map((a) => `'${a}'`).join(", ")} each have a key named '${idOrName}': add --account <account>, or give the key's id`,
      );
  }
  throw notFound(`no key with id or name '${idOrName}'${account === undefined ? "" : ` in account '${account}'`}`, "key_not_found");
}
