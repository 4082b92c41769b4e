/**
 * Google's GenerateContentRequest (https://ai.google.dev/api/generate-content#request-body;
 * Content, Part, Tool, ToolConfig in https://ai.google.dev/api/caching) as zod schemas: the
 * fields the gateway reads are checked, every other field is kept (a native request travels as
 * sent; translate.ts decides what an unknown field means elsewhere). The same schemas describe
 * the route in GET /v1/openapi.json (openapi.ts).
 */
import { z } from "zod";

const Blob = z.looseObject({ mimeType: z.string(), data: z.string() });
const FileData = z.looseObject({ mimeType: z.string().optional(), fileUri: z.string() });
const FunctionCall = z.looseObject({ id: z.string().optional(), name: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() });
const FunctionResponse = z.looseObject({ id: z.string().optional(), name: z.string().min(1), response: z.record(z.string(), z.unknown()) });

export const Part = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: Blob.optional(),
  fileData: FileData.optional(),
  functionCall: FunctionCall.optional(),
  functionResponse: FunctionResponse.optional(),
});
export type Part = z.infer<typeof Part>;

export const Content = z.looseObject({
  // "function" is the role of function responses in older clients; absent means "user".
  role: z.enum(["user", "model", "function"]).optional(),
  parts: z.array(Part),
});
export type Content = z.infer<typeof Content>;

const Schema = z.record(z.string(), z.unknown());

const FunctionDeclaration = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().optional(),
  parameters: Schema.optional(),
  parametersJsonSchema: Schema.optional(),
});

export const Tool = z.looseObject({ functionDeclarations: z.array(FunctionDeclaration).optional() });
export type Tool = z.infer<typeof Tool>;

const ToolConfig = z.looseObject({
  functionCallingConfig: z
    .looseObject({
      mode: z.enum(["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"]).optional(),
      allowedFunctionNames: z.array(z.string()).optional(),
    })
    .optional(),
});
export type ToolConfig = z.infer<typeof ToolConfig>;

const ThinkingConfig = z.looseObject({
  includeThoughts: z.boolean().optional(),
  thinkingBudget: z.number().int().min(-1).optional(),
  // Google's enum; clients send it upper case, the docs show both.
  thinkingLevel: z
    .string()
    .regex(/^(THINKING_LEVEL_UNSPECIFIED|MINIMAL|LOW|MEDIUM|HIGH)$/i, "Expected MINIMAL, LOW, MEDIUM or HIGH")
    .optional(),
});

export const GenerationConfig = z.looseObject({
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  topK: z.number().int().min(1).optional(),
  maxOutputTokens: z.number().int().min(1).optional(),
  stopSequences: z.array(z.string()).max(5).optional(),
  candidateCount: z.number().int().min(1).max(8).optional(),
  responseMimeType: z.string().optional(),
  responseSchema: Schema.optional(),
  responseJsonSchema: Schema.optional(),
  thinkingConfig: ThinkingConfig.optional(),
  seed: z.number().int().optional(),
  presencePenalty: z.number().optional(),
  frequencyPenalty: z.number().optional(),
});
export type GenerationConfig = z.infer<typeof GenerationConfig>;

const SafetySetting = z.looseObject({ category: z.string(), threshold: z.string() });

/** POST .../models/{model}:generateContent and :streamGenerateContent: the model is in the path, never in the body. */
export const GenerateContentRequest = z.looseObject({
  contents: z.array(Content).min(1),
  systemInstruction: Content.optional(),
  tools: z.array(Tool).max(128).optional(),
  toolConfig: ToolConfig.optional(),
  generationConfig: GenerationConfig.optional(),
  safetySettings: z.array(SafetySetting).optional(),
  cachedContent: z.string().optional(),
});
export type GenerateContentRequest = z.infer<typeof GenerateContentRequest>;

/** POST .../models/{model}:countTokens: `contents`, or a whole `generateContentRequest` (https://ai.google.dev/api/tokens). */
export const CountTokensRequest = z.looseObject({
  contents: z.array(Content).optional(),
  generateContentRequest: GenerateContentRequest.optional(),
});
export type CountTokensRequest = z.infer<typeof CountTokensRequest>;
