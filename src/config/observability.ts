/**
 * The observability keys of gateway.config.yaml (docs/observability.md): `metrics`, `log`,
 * `otel`. Kept apart from config/config.ts, which assembles them.
 */
import { z } from "zod";

/** GET /metrics: loopback clients, or a bearer `token` from anywhere. */
export const MetricsConfig = z.strictObject({
  enabled: z.boolean().default(true),
  /** A refine, not min(): config/diagnostics.ts shows a custom message as written. */
  token: z
    .string()
    .refine((t) => t.length >= 16, "expected at least 16 characters (a long random value)")
    .optional(),
  /** Loopback clients need no token; false: only the token opens it (a shared host). */
  loopback: z.boolean().default(true),
});

/** One line per request and the operator's notices (src/observability/log.ts). */
export const LogConfig = z.strictObject({
  /** auto: JSON unless stdout is a terminal. */
  format: z.enum(["auto", "json", "pretty"]).default("auto"),
  level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  /** Request and answer contents in the request line; never keys. */
  bodies: z.boolean().default(false),
});

/** OpenTelemetry traces over OTLP/HTTP (src/observability/tracing.ts); absent: off, and free. */
export const OtelConfig = z.strictObject({
  /** The collector's base URL (`/v1/traces` is added), e.g. http://127.0.0.1:4318. */
  endpoint: z.url(),
  serviceName: z.string().min(1).default("llm-gateway"),
  /** Sent with every export (a collector's auth header). */
  headers: z.record(z.string(), z.string()).default({}),
});
