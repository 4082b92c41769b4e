/** The error object every route answers with (http/error-reply.ts renders it), for the OpenAPI documents. */
import { z } from "zod";

const ErrorType = z.enum(["invalid_request_error", "authentication_error", "insufficient_credits", "not_found", "rate_limit_error", "upstream_error"]);

export const ErrorBody = z.object({
  error: z.strictObject({ message: z.string(), type: ErrorType, code: z.string().nullable(), request_id: z.string() }),
});

/** Under `openai` the error object also carries `param` (the field path, or null). */
export const OpenAIErrorBody = z.object({
  error: z.strictObject({ message: z.string(), type: ErrorType, code: z.string().nullable(), param: z.string().nullable(), request_id: z.string() }),
});
