/**
 * GET /v1beta/models and GET /v1beta/models/{model} in Google's shapes
 * (https://ai.google.dev/api/models: `{models: [Model], nextPageToken?}` and one Model), also
 * what GET /v1/models answers a client that authenticates the Google way (docs/gemini.md,
 * "Which shape"): the account's usable models, as GET /v1/models lists them, chat models with
 * the generate methods and embedding models with the embed methods. Naming (docs/gemini.md,
 * "Model names"): a `google/` model is `models/<id>` with its bare id; any other model is
 * `models/<id>` with its bare id when no other usable model has that bare id, else
 * `models/<vendor>/<model>`; config aliases with an exact name are listed under it. Each name
 * routes back to its model. Pages as Google's: `pageSize` (default 50, at most 1000) and the
 * `nextPageToken` to pass back as `pageToken`.
 */
import type { EndpointServices } from "../../pipeline/endpoint.js";
import { resolveAlias } from "../../catalog/aliases.js";
import { capabilitiesEntry } from "../../catalog/model-kind.js";
import { invalidRequest, modelNotFound } from "../../core/errors.js";
import type { CatalogModel, KeyRecord } from "../../store/index.js";
import { CHAT_METHODS, EMBED_METHODS, modelOf } from "./path.js";

const PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

function entry(name: string, m: CatalogModel) {
  const kinds = capabilitiesEntry(m);
  return {
    name: `models/${name}`,
    displayName: m.id,
    description: `${m.id} through the gateway`,
    ...(m.contextLength ? { inputTokenLimit: m.contextLength } : {}),
    ...(m.maxOutput ? { outputTokenLimit: m.maxOutput } : {}),
    supportedGenerationMethods: [...(kinds.chat ? CHAT_METHODS : []), ...(kinds.embeddings ? EMBED_METHODS : [])],
    ...(m.capabilities?.reasoning ? { thinking: true } : {}),
  };
}

type Entry = ReturnType<typeof entry>;

const bare = (id: string) => id.slice(id.indexOf("/") + 1);

/** Every entry, in the catalog's order, then the aliases. */
async function allModels(gw: EndpointServices, key: KeyRecord): Promise<Entry[]> {
  const byok = await gw.byok.forAccount(key.account);
  const models = gw.catalog.list((plugin) => byok.readable(plugin));
  const counts = new Map<string, number>();
  for (const m of models) counts.set(bare(m.id), (counts.get(bare(m.id)) ?? 0) + 1);
  const named = models.map((m) => {
    const short = bare(m.id);
    const google = models.find((o) => o.id === `google/${short}`);
    return entry((google ? google === m : counts.get(short) === 1) ? short : m.id, m);
  });
  const byId = new Map(models.map((m) => [m.id, m]));
  const aliases = Object.entries(gw.config.aliases).flatMap(([alias, target]) => {
    const m = byId.get(target);
    return m && !/[*?]/.test(alias) && !byId.has(alias) ? [entry(alias, m)] : [];
  });
  return [...named, ...aliases];
}

/** One page of the list: `pageSize` and `pageToken` as the query gives them. */
export async function geminiModels(gw: EndpointServices, key: KeyRecord, query: URLSearchParams) {
  const size = pageSizeOf(query.get("pageSize"));
  const from = offsetOf(query.get("pageToken"));
  const all = await allModels(gw, key);
  const models = all.slice(from, from + size);
  return from + size < all.length ? { models, nextPageToken: Buffer.from(String(from + size)).toString("base64url") } : { models };
}

/** One entry by the name the list gives it, an alias (a glob's too), or a catalog id. */
export async function geminiModel(gw: EndpointServices, key: KeyRecord, name: string) {
  const wanted = modelOf(name);
  const models = await allModels(gw, key);
  const found = models.find((m) => m.name === `models/${wanted}`) ?? models.find((m) => m.displayName === resolveAlias(gw.config.aliases, wanted));
  if (!found) throw modelNotFound(wanted);
  return found.name === `models/${wanted}` ? found : { ...found, name: `models/${wanted}` };
}

function pageSizeOf(raw: string | null): number {
  if (raw === null || raw === "" || raw === "0") return PAGE_SIZE;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw invalidRequest("pageSize: Expected a non-negative integer", null, "pageSize");
  return Math.min(n, MAX_PAGE_SIZE);
}

/** The token is the offset of the page it starts, as this list wrote it; anything else is Google's 400. */
function offsetOf(raw: string | null): number {
  if (raw === null || raw === "") return 0;
  const text = Buffer.from(raw, "base64url").toString();
  const n = Number(text);
  if (!/^[1-9]\d{0,8}$/.test(text) || !Number.isSafeInteger(n)) throw invalidRequest("pageToken: not a token this list gave out", null, "pageToken");
  return n;
}
