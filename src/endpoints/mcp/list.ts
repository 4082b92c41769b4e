/**
 * `tools/list` (docs/mcp.md, "Grants"): exactly what the key may call, from the servers that
 * answer (one that is down is left out, its status in `mcp list` and /v1/health/mcp). On /mcp a
 * tool is named `<server>__<tool>`; on /mcp/<server> by its own name. A key that resolves zero
 * tools gets an empty list and the log says why (never silently: LiteLLM #32563).
 */
import type { Gateway } from "../../gateway.js";
import { emptyReason } from "../../mcp/grants.js";
import { result, SEPARATOR, type McpCall, type Reply } from "./reply.js";

export async function listTools(gw: Gateway, reply: Reply, call: McpCall): Promise<void> {
  const access = await gw.mcp.access(call.key);
  const only = call.scope.server || undefined;
  const { tools, reachable } = await gw.mcp.granted(access, only);
  const prefixed = !only;
  const listed = tools.map(({ server, tool }) => (prefixed ? { ...tool, name: `${server.spec.name}${SEPARATOR}${tool.name}` } : tool));
  if (listed.length === 0) {
    const why = emptyReason(call.key.mcp, access, reachable);
    gw.obs.log.notice("warn", `[gateway] mcp: key ${call.key.id} (account ${call.key.account}) lists no tool${only ? ` on ${only}` : ""}: ${why}`, {
      event: "mcp_no_tools",
      key_id: call.key.id,
      req_id: reply.ex.state.id,
    });
  }
  result(reply, { tools: listed });
}
