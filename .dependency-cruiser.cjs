// The layers of src/, lowest first (docs/architecture.md "The tree"). A module may import
// from its own layer and from layers below it, never from one above: `npm run lint` runs
// dependency-cruiser with these rules and fails on an upward import or an import cycle.
const LAYERS = [
  "core", // errors, money, the internal request form, validation messages: imports nothing
  "guardrails", // secret rules, the keyword prefilter, the request, answer and stream checks
  "config",
  "store",
  "plugin", // the provider contract and its loader
  "access", // keys, BYOK sealing, rate-limit windows
  "catalog",
  "upstream", // the pool, capped reads, router, health, circuits
  "fleet", // what several processes share through Redis
  "cache", // the exact response cache: in process, or in Redis for a fleet
  "observability",
  "billing",
  "alerts", // budget thresholds and low balances: detection after settlement, the webhook outbox's deliverer
  "mcp", // the MCP gateway's grants, upstream servers and their pooled clients (docs/mcp.md); /mcp itself is endpoints/mcp/
  "operations", // what the CLI and the dashboard both do
  "gateway", // src/gateway.ts, the composition root every request handler receives
  "http",
  "pipeline",
  "endpoints",
  "dashboard",
  "app",
  "cli",
];
const dir = (layer) => (layer === "gateway" ? "^src/gateway\\.ts$" : `^src/${layer}/`);

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer}`,
  comment: `src/${layer === "gateway" ? "gateway.ts" : layer + "/"} may import only from itself and the layers below it`,
  severity: "error",
  from: { path: dir(layer) },
  to: {
    path: LAYERS.slice(i + 1)
      .map(dir)
      .join("|"),
  },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: "no-circular",
      comment: "an import cycle: move what both sides need into the lower one",
      severity: "error",
      from: { path: "^(src|providers|bench|dashboard/src)/" },
      to: { circular: true },
    },
    {
      name: "providers-use-the-plugin-contract",
      comment: "an adapter imports from src/ only the plugin contract (src/plugin/contract.ts)",
      severity: "error",
      from: { path: "^providers/" },
      to: { path: "^src/", pathNot: "^src/plugin/contract\\.ts$" },
    },
    {
      name: "endpoints-stand-alone",
      comment: "an endpoint folder does not import another endpoint's wire format: share through pipeline/ or http/",
      severity: "error",
      from: { path: "^src/endpoints/([^/]+)/" },
      to: { path: "^src/endpoints/", pathNot: "^src/endpoints/$1/" },
    },
    {
      name: "endpoints-call-upstream-through-the-pipeline",
      comment: "an endpoint never sends upstream itself: the pipeline's adapter, native and count steps do (src/pipeline/native.ts, docs/architecture.md)",
      severity: "error",
      from: { path: "^src/endpoints/" },
      to: { path: "^src/upstream/" },
    },
    {
      name: "endpoints-receive-their-services",
      comment: "an endpoint gets EndpointServices (src/pipeline/endpoint.ts), not the whole Gateway: what it may touch is in its imports",
      severity: "error",
      from: { path: "^src/endpoints/" },
      to: { path: "^src/gateway\\.ts$" },
    },
    {
      name: "nothing-below-imports-src",
      comment: "src/ never imports tests or benchmarks",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^(src|providers|bench|dashboard/src)/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
