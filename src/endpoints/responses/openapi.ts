/**
 * The Responses API's part of GET /v1/openapi.json (src/app/openapi.ts assembles the document),
 * from the same zod schemas that validate the requests.
 */
import { answerHeaders, bearer, errorResponses as errors, json, rateLimitHeaders, ref, withRouting, type OpenApiPart } from "../../http/openapi-parts.js";
import { DeletedResponse, ResponseObject, ResponsesRequest } from "./schema.js";

export function responsesOpenApi(): OpenApiPart {
  const id = [{ name: "id", in: "path", required: true, schema: { type: "string" }, description: "A response id (resp_...) of this account." }];
  const notFound: Array<[string, string]> = [
    ["401", "Invalid API key"],
    ["404", "No such response for this account (code response_not_found)"],
    ["429", "Rate limited"],
  ];
  return {
    schemas: {
      CreateResponseRequest: {
        ...withRouting(json(ResponsesRequest)),
        description:
          "OpenAI's Responses request: sent natively to OpenAI's and Azure OpenAI's own Responses API, translated to the chat request for every other provider (docs/responses.md). Input items are read leniently (fields replayed from earlier output are dropped); the top level is strict (`passthrough` drops unknown top-level fields). An explicit null means absent. Hosted tools a translated route's provider does not run are left out and named in the X-Gateway-Ignored header (a 400 under server.compat strict).",
      },
      Response: {
        ...json(ResponseObject),
        description:
          "With stream=true: text/event-stream of `event: <type>` / `data: {type, sequence_number, ...}` events, OpenAI's sequence, ending with response.completed, response.incomplete or response.failed carrying this object.",
      },
      DeletedResponse: json(DeletedResponse),
    },
    paths: {
      "/v1/responses": {
        post: {
          security: bearer,
          requestBody: { required: true, content: { "application/json": { schema: ref("CreateResponseRequest") } } },
          responses: {
            "200": {
              description: "A response (JSON), or with stream=true its event stream.",
              headers: answerHeaders,
              content: { "application/json": { schema: ref("Response") }, "text/event-stream": { schema: { type: "object" } } },
            },
            ...errors([
              ["400", "Invalid request, or a field the model cannot honour (code unsupported_parameter)"],
              ["401", "Invalid API key"],
              ["402", "Insufficient credits"],
              ["404", "Model not found, or previous_response_id unknown to this account (code response_not_found)"],
              ["413", "Request too large"],
              ["429", "Rate limited"],
              ["503", "Upstream unavailable"],
            ]),
          },
        },
      },
      "/v1/responses/{id}": {
        get: {
          security: bearer,
          parameters: id,
          responses: {
            "200": { description: "The stored response", headers: rateLimitHeaders, content: { "application/json": { schema: ref("Response") } } },
            ...errors(notFound),
          },
        },
        delete: {
          security: bearer,
          parameters: id,
          responses: {
            "200": { description: "Deleted", headers: rateLimitHeaders, content: { "application/json": { schema: ref("DeletedResponse") } } },
            ...errors(notFound),
          },
        },
      },
    },
  };
}
