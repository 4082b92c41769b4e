/**
 * The pipeline's stages are data (src/pipeline/stages.ts): docs/architecture.md names them in
 * the same order, and every model route plugs in a function for each stage an endpoint owns.
 */
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { CHAT_COMPLETIONS } from "../src/endpoints/chat/route.js";
import { EMBEDDINGS } from "../src/endpoints/embeddings/route.js";
import { CREATE_RESPONSE } from "../src/endpoints/responses/route.js";
import { ANSWER_STAGES, ENDPOINT_STAGES, MODEL_STAGES, REQUEST_STAGES, STAGES } from "../src/pipeline/stages.js";
import { RUNS } from "../src/pipeline/stage-runs.js";

test("docs/architecture.md lists the stages in the pipeline's order", () => {
  const doc = readFileSync(new URL("../docs/architecture.md", import.meta.url), "utf8");
  const line = doc.split("\n").find((l) => l.trim().startsWith("auth →"));
  expect(line?.trim()).toBe(STAGES.join(" → "));
});

test("an endpoint's stages are pipeline stages, in the pipeline's order", () => {
  const positions = ENDPOINT_STAGES.map((s) => STAGES.indexOf(s));
  expect(positions.every((p) => p >= 0)).toBe(true);
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);
});

test("chat, Responses and embeddings each plug in a function for every endpoint stage", () => {
  for (const endpoint of [CHAT_COMPLETIONS, CREATE_RESPONSE, EMBEDDINGS]) {
    for (const stage of ENDPOINT_STAGES) expect(typeof endpoint[stage], `${endpoint.path} ${stage}`).toBe("function");
  }
});

test("the stage list is what runs: pipeline/stage-runs.ts has a function for every stage, in the list's order", () => {
  expect(Object.keys(RUNS)).toEqual([...STAGES]);
  for (const stage of STAGES) expect(typeof RUNS[stage], stage).toBe("function");
  expect([...REQUEST_STAGES, ...MODEL_STAGES, ...ANSWER_STAGES]).toEqual([...STAGES]);
});
