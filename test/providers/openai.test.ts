import { describeProvider } from "../helpers/conformance.js";
import { openaiFormatFixture } from "../helpers/openai-wire.js";

describeProvider(openaiFormatFixture("openai"));
describeProvider(openaiFormatFixture("openai-compatible", { basePath: "/api/v1" }));
