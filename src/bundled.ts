/**
 * The catalog shipped with the gateway, used until the first `gateway models sync`.
 * (Filled from a model-catalog package; see README "Catalog".)
 */
import type { CatalogModel } from "./store/index.js";

export function bundledCatalog(_now: number): CatalogModel[] {
  return [];
}
