/**
 * A real OpenID Connect issuer for the single sign-on tests: oidc-provider on a loopback port,
 * in-memory storage, PKCE required, its development login and consent pages. Any login name is
 * accepted as the account id; `users` says the claims (email, email_verified, role) each one gets.
 * The port is taken first and the provider attached later, so the gateway's redirect URI (known
 * only once it listens) can be registered: until then every request is a 503.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestIssuer {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Login name -> claims; edit it between sign-ins. */
  users: Map<string, Record<string, unknown>>;
  /** Starts answering as an issuer whose only client redirects to `redirectUri`. */
  attach(redirectUri: string): void;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export async function startTestIssuer(): Promise<TestIssuer> {
  let handler: Handler = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const users = new Map<string, Record<string, unknown>>();
  const clientSecret = `test-oidc-client-secret-${Math.random().toString(36).slice(2)}`;
  return {
    url,
    clientId: "llm-gateway",
    clientSecret,
    users,
    attach(redirectUri) {
      const provider = new Provider(url, {
        clients: [
          {
            client_id: "llm-gateway",
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            response_types: ["code"],
            grant_types: ["authorization_code"],
          },
        ],
        pkce: { required: () => true },
        features: { devInteractions: { enabled: true } },
        claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["role"] },
        cookies: { keys: ["test-issuer-cookie-key"] },
        findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id, ...users.get(id) }) }),
      });
      handler = provider.callback() as Handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
