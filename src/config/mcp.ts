/**
 * The `mcp` key of gateway.config.yaml (docs/mcp.md): the upstream MCP servers the gateway
 * serves at /mcp, over Streamable HTTP (`url`, `headers`) or stdio (`command`, `env`; config
 * only: a program the operator chose). Header and env values may be `${ENV}` like any value.
 */
import { z } from "zod";
import { Money } from "./amount.js";

/**
 * A server's name: the `<server>` of `/mcp/<server>` and of `<server>__<tool>`, so lower case,
 * digits and single hyphens (a `__` would make a tool's full name ambiguous).
 */
export const MCP_SERVER_NAME = /^[a-z0-9](?:-?[a-z0-9])*$/;
export const McpServerName = z.string().max(40).regex(MCP_SERVER_NAME, "Expected a server name of lower-case letters, digits and hyphens");

/** A tool name pattern: `*` any run of characters, `?` one (mcp/glob.ts). */
const ToolGlob = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.*?/-]+$/, "Expected a tool name or a glob such as read_*");

const Common = {
  /** What the server exposes at all: tools matching none of these are never listed or called. */
  tools: z.array(ToolGlob).min(1).optional(),
  timeoutMs: z.number().int().positive().max(600_000).optional(),
  /** USD per call, held and charged like a model request (default 0). */
  pricePerCall: Money.optional(),
};

const HeaderName = z.string().regex(/^[A-Za-z0-9-]+$/, "Expected an HTTP header name");

export const McpHttpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(HeaderName, z.string()).optional(),
  ...Common,
});

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "Expected an environment variable name");

/**
 * One object with every key (rather than a union of the two kinds), so an unknown key gets the
 * config's did-you-mean (`header` → headers); the kind is checked after: `url` (Streamable HTTP,
 * with `headers`) or `command` (stdio, with `env`), exactly one.
 */
export const McpServerConfig = z
  .strictObject({
    url: z.url({ protocol: /^https?$/ }).optional(),
    headers: z.record(HeaderName, z.string()).optional(),
    command: z.array(z.string().min(1)).min(1).optional(),
    env: z.record(EnvName, z.string()).optional(),
    ...Common,
  })
  .superRefine((s, ctx) => {
    if ((s.url === undefined) === (s.command === undefined))
      ctx.addIssue({ code: "custom", message: "expected either url (Streamable HTTP) or command (stdio)" });
    if (s.headers && !s.url) ctx.addIssue({ code: "custom", path: ["headers"], message: "headers go with url (a stdio server takes env)" });
    if (s.env && !s.command) ctx.addIssue({ code: "custom", path: ["env"], message: "env goes with command (an HTTP server takes headers)" });
  });
export type McpServerConfig = z.infer<typeof McpServerConfig>;

export const McpConfig = z.strictObject({
  servers: z.record(McpServerName, McpServerConfig).default({}),
  /** How long a tool list is trusted without a `list_changed` notice (ms); a server that sends none is re-read this often. */
  toolsTtlMs: z.number().int().min(100).default(60_000),
});
export type McpConfig = z.infer<typeof McpConfig>;
