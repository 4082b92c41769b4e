/**
 * SigV4 signing with AWS's own signer (no hand-rolled crypto). The signed headers become
 * the upstream request's headers and the body is sent as the exact string that was signed.
 */
import type { UpstreamRequest } from "../../src/plugin/contract.js";
import type { AwsCredentials } from "./credentials.js";

export interface SignInput {
  url: string;
  method: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
  region: string;
  /** The signing name: "bedrock" for both the runtime and the control plane. */
  service: string;
  credentials: AwsCredentials;
}

// The AWS libraries load on first use: a gateway that never calls Bedrock never pays for them.
let aws: Promise<[typeof import("@smithy/hash-node"), typeof import("@smithy/signature-v4")]> | undefined;

export async function signRequest(input: SignInput): Promise<UpstreamRequest> {
  const [{ Hash }, { SignatureV4 }] = await (aws ??= Promise.all([import("@smithy/hash-node"), import("@smithy/signature-v4")]));
  const url = new URL(input.url);
  const signer = new SignatureV4({
    service: input.service,
    region: input.region,
    credentials: input.credentials,
    sha256: Hash.bind(null, "sha256"),
  });
  const signed = await signer.sign({
    method: input.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    // The signer signs `host` but does not add it; undici sends this value as the Host header.
    headers: { host: url.host, ...input.headers },
    body: input.body,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) headers[name] = String(value);
  return { url: input.url, method: input.method, headers, body: input.body };
}
