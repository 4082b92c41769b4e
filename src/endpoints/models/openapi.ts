/** GET /v1/models and GET /v1/models/{id} in GET /v1/openapi.json. */
import { bearer, errorResponses, json, okJson, type OpenApiPart } from "../../http/openapi-parts.js";
import { ModelEntry, ModelList } from "./schema.js";

const id = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string" },
  description: "A model id or an alias; a vendor/model id's slash may stand as it is.",
};

export function modelsOpenApi(): OpenApiPart {
  return {
    schemas: { Model: json(ModelEntry), ModelList: json(ModelList) },
    paths: {
      "/v1/models": {
        get: {
          security: bearer,
          responses: {
            "200": okJson("Models usable by this account", "ModelList"),
            ...errorResponses([
              ["401", "Invalid API key"],
              ["429", "Rate limited"],
            ]),
          },
        },
      },
      "/v1/models/{id}": {
        get: {
          security: bearer,
          parameters: [id],
          responses: {
            "200": okJson("One entry of GET /v1/models", "Model"),
            ...errorResponses([
              ["401", "Invalid API key"],
              ["404", "Model not found (code model_not_found)"],
              ["429", "Rate limited"],
            ]),
          },
        },
      },
    },
  };
}
