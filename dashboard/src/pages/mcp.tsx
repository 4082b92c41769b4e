/** MCP: the upstream servers and their status, what the account lets its keys be granted, and what each key may call (docs/mcp.md). */
import { useState } from "preact/hooks";
import { api, withAccount } from "../api.js";
import { date, Empty, ErrorLine, useLoad } from "../ui.js";

interface McpView {
  servers: Array<{ name: string; transport: string; status: string; last_error: string | null }>;
  grants: Array<{ server: string; tools: string; created_at: string }>;
  keys: Array<{ id: string; name: string; grant: string[] | null; tools: string[] }>;
}

export function McpPage({ account }: { account: string }) {
  const { data, error, reload } = useLoad(() => api<McpView>("GET", withAccount("/mcp", account)), [account]);
  const [formError, setFormError] = useState<string | null>(null);
  const act = async (run: () => Promise<unknown>) => {
    try {
      await run();
      setFormError(null);
      reload();
    } catch (err) {
      setFormError((err as Error).message);
    }
  };
  const grant = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    void act(async () => {
      await api("PUT", withAccount("/mcp/grants", account), { server: f.get("server"), tools: String(f.get("tools") || "*") });
      form.reset();
    });
  };
  const revoke = (server: string, tools: string) =>
    act(() => api("DELETE", withAccount(`/mcp/grants?server=${encodeURIComponent(server)}&tools=${encodeURIComponent(tools)}`, account)));
  return (
    <section>
      <h2>MCP</h2>
      <p class="hint">
        Tools of the MCP servers behind the gateway. A key calls only what its own grant names (keys create|update --mcp), within what this account allows below
        and each server exposes; with no account grant, every server is allowed.
      </p>
      <ErrorLine error={error} />
      {data && <Servers servers={data.servers} />}
      <h3>Account grants</h3>
      <form class="card row" onSubmit={grant}>
        <div class="field">
          <label for="mcp-server">Server</label>
          <select id="mcp-server" name="server" required>
            {data?.servers.map((s) => (
              <option value={s.name}>{s.name}</option>
            ))}
          </select>
        </div>
        <label>
          Tools
          <input name="tools" placeholder="* or read_*" autocomplete="off" />
        </label>
        <button type="submit">Grant</button>
        <ErrorLine error={formError} />
      </form>
      {data && data.grants.length === 0 && <Empty>No account grant: keys may be granted any server.</Empty>}
      {data && data.grants.length > 0 && (
        <ul class="card">
          {data.grants.map((g) => (
            <li>
              <code>
                {g.server}:{g.tools}
              </code>{" "}
              since {date(g.created_at)}{" "}
              <button type="button" class="danger" onClick={() => void revoke(g.server, g.tools)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <h3>What each key may call</h3>
      {data && <KeyTools keys={data.keys} />}
    </section>
  );
}

function Servers({ servers }: { servers: McpView["servers"] }) {
  if (servers.length === 0) return <Empty>No MCP server is configured (gateway mcp add, or mcp.servers in the config).</Empty>;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>Server</th>
            <th>Transport</th>
            <th>Status</th>
            <th>Last error</th>
          </tr>
        </thead>
        <tbody>
          {servers.map((s) => (
            <tr>
              <td data-label="Server">{s.name}</td>
              <td data-label="Transport">{s.transport}</td>
              <td data-label="Status">{s.status}</td>
              <td data-label="Last error">{s.last_error ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function KeyTools({ keys }: { keys: McpView["keys"] }) {
  if (keys.length === 0) return <Empty>No active key.</Empty>;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>Key</th>
            <th>Grant</th>
            <th>Tools</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr>
              <td data-label="Key">{k.name}</td>
              <td data-label="Grant">{k.grant ? k.grant.join(", ") : "none"}</td>
              <td data-label="Tools">{k.tools.length ? k.tools.join(", ") : "none"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
