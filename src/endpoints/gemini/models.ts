/**
 * GET /v1beta/models and GET /v1beta/models/{model} in Google's list shape
 * (https://ai.google.dev/api/models#method:-models.list): the account's usable chat models, as
 * GET /v1/models lists them. Naming (docs/gemini.md, "Model names"): a `google/` model is
 * `models/<id>` with its bare id; any other model is `models/<id>` with its bare id when no
 * other usable model has that bare id, else `models/<vendor>/<model>`; config aliases with an
 * exact name are listed under it. Each name routes back to its model on /v1beta.
 */
import { resolveAlias } from "../../catalog/aliases.js";
import { capabilitiesEntry } from "../../catalog/model-kind.js";
import { modelNotFound } from "../../core/errors.js";
import type { Gateway } from "../../gateway.js";
import type { CatalogModel, KeyRecord } from "../../store/index.js";
import { modelOf } from "./path.js";

const METHODS = ["generateContent", "streamGenerateContent", "countTokens"];

function entry(name: string, m: CatalogModel) {
  return {
    name: `models/${name}`,
    displayName: m.id,
    description: `${m.id} through the gateway`,
    ...(m.contextLength ? { inputTokenLimit: m.contextLength } : {}),
    ...(m.maxOutput ? { outputTokenLimit: m.maxOutput } : {}),
    supportedGenerationMethods: METHODS,
  };
}

const bare = (id: string) => id.slice(id.indexOf("/") + 1);

export async function geminiModels(gw: Gateway, key: KeyRecord) {
  const byok = await gw.byok.forAccount(key.account);
  const models = gw.catalog.list((plugin) => byok.readable(plugin)).filter((m) => capabilitiesEntry(m).chat);
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
  return { models: [...named, ...aliases] };
}

/** One entry by the name the list gives it, an alias (a glob's too), or a catalog id. */
export async function geminiModel(gw: Gateway, key: KeyRecord, name: string) {
  const wanted = modelOf(name);
  const { models } = await geminiModels(gw, key);
  const found = models.find((m) => m.name === `models/${wanted}`) ?? models.find((m) => m.displayName === resolveAlias(gw.config.aliases, wanted));
  if (!found) throw modelNotFound(wanted);
  return found.name === `models/${wanted}` ? found : { ...found, name: `models/${wanted}` };
}
