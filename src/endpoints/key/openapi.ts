/** GET /v1/key in GET /v1/openapi.json. */
import { bearer, describe, errorResponses, json, okJson, type OpenApiPart } from "../../http/openapi-parts.js";
import { KeyInfo } from "./route.js";

export function keyOpenApi(): OpenApiPart {
  return {
    schemas: {
      KeyInfo: describe(
        json(KeyInfo),
        "The calling key: limits, budget and balance; money as decimal USD strings. `budget.remaining` = limit - spent in the period - open holds.",
      ),
    },
    paths: {
      "/v1/key": {
        get: {
          security: bearer,
          responses: {
            "200": okJson("What the calling key may still do", "KeyInfo"),
            ...errorResponses([
              ["401", "Invalid API key"],
              ["429", "Rate limited"],
            ]),
          },
        },
      },
    },
  };
}
