/**
 * The one start-up line of `gateway serve` saying where state lives: "store: SQLite ./gateway.db"
 * or "store: PostgreSQL host:port/db, limits in Redis host:port". Hosts and names only, never a
 * user or password of a URL (docs/cli.md, "What `serve` tells the operator").
 */
import { redisOf, type Config } from "../config/config.js";
import { isPostgresUrl } from "../core/database-url.js";

/** host:port[/path] of a URL, without its credentials; the default port when it names none. */
export function hostOf(url: string, defaultPort: number): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || defaultPort}${u.pathname.length > 1 ? u.pathname : ""}`;
  } catch {
    return "an unparsable URL";
  }
}

export function storeLine(config: Config, env: NodeJS.ProcessEnv): string {
  const db = isPostgresUrl(config.database) ? `PostgreSQL ${hostOf(config.database, 5432)}` : `SQLite ${config.database}`;
  const redis = redisOf(config, env);
  const limits = redis ? `, limits in Redis ${hostOf(redis.url, 6379)}` : ", limits per process";
  return `store: ${db}${limits}`;
}
