/**
 * One true positive per built-in guardrail rule (docs/guardrails.md "Rules"), built from the
 * provider's documented key format with deterministic random characters (no real key is ever
 * in the repository), and the near-misses every rule must let through.
 */
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const HEX = "0123456789abcdef";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const B64 = ALNUM + "+/";
const B64URL = ALNUM + "-_";

/** A deterministic generator: the same strings on every run. */
export function chars(alphabet: string, n: number, seed = 7): string {
  let x = seed * 2654435761;
  let s = "";
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += alphabet[(x >>> 8) % alphabet.length];
  }
  return s;
}

const pemBody = Array.from({ length: 6 }, (_, i) => chars(B64, 64, 30 + i)).join("\n");

export interface Sample {
  rule: string;
  /** The text a client or a model would send. */
  text: string;
  /** The part of it that is the secret (what `redact` replaces). */
  secret: string;
}

function sample(rule: string, before: string, secret: string, after = ""): Sample {
  return { rule, text: `${before}${secret}${after}`, secret };
}

export const SAMPLES: Sample[] = [
  sample("private-key", "my key:\n", `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----`, "\nthanks"),
  sample("private-key", "", `-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody}\n-----END OPENSSH PRIVATE KEY-----`),
  sample("aws-access-key-id", "aws_access_key_id = ", `AKIA${chars(UPPER32, 16, 2)}`, "\n"),
  sample("aws-secret-access-key", 'AWS_SECRET_ACCESS_KEY="', chars(B64, 40, 3), '"'),
  sample("github-token", "export GH_TOKEN=", `ghp_${chars(ALNUM, 36, 4)}`),
  sample("github-token", "token: ", `github_pat_${chars(ALNUM + "_", 82, 5)}`),
  sample("gitlab-token", "CI uses ", `glpat-${chars(B64URL, 20, 6)}`, " here"),
  sample("slack-token", "SLACK_BOT_TOKEN=", `xoxb-${chars("0123456789", 12, 7)}-${chars("0123456789", 12, 8)}-${chars(ALNUM, 24, 9)}`),
  sample("slack-webhook", "post to https://hooks.slack.com/services/", `T${chars(ALNUM, 8, 10)}/B${chars(ALNUM, 8, 11)}/${chars(ALNUM, 24, 12)}`),
  sample("stripe-key", "stripe.api_key = '", `sk_live_${chars(ALNUM, 24, 13)}`, "'"),
  sample("google-api-key", "GEMINI_API_KEY=", `AIza${chars(B64URL, 35, 14)}`),
  sample("openai-api-key", "OPENAI_API_KEY=", `sk-proj-${chars(B64URL, 74, 15)}T3BlbkFJ${chars(B64URL, 74, 16)}`),
  sample("openai-api-key", "key ", `sk-${chars(ALNUM, 20, 17)}T3BlbkFJ${chars(ALNUM, 20, 18)}`, "."),
  sample("anthropic-api-key", "ANTHROPIC_API_KEY=", `sk-ant-api03-${chars(B64URL, 93, 19)}AA`),
  sample("openrouter-api-key", "Bearer ", `sk-or-v1-${chars(HEX, 64, 20)}`),
  sample("groq-api-key", "GROQ_API_KEY=", `gsk_${chars(ALNUM, 52, 21)}`),
  sample("xai-api-key", "XAI_API_KEY=", `xai-${chars(ALNUM, 80, 22)}`),
  sample("huggingface-token", "HF_TOKEN=", `hf_${chars(LETTERS, 34, 23)}`),
  sample("jwt", "Authorization: Bearer ", `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${chars(B64URL, 60, 24)}.${chars(B64URL, 43, 25)}`),
  sample("database-url", "DATABASE_URL=postgres://app:", chars(ALNUM, 18, 26), "@db.internal:5432/prod"),
  sample("database-url", "mongodb+srv://admin:", chars(ALNUM, 14, 27), "@cluster0.example.net/app"),
  sample("generic-secret", 'const config = { password: "', "Zx8kPq2vLm9wRt4s", '" };'),
  sample("generic-secret", "DB_PASSWORD=", chars(ALNUM, 20, 28), "\n"),
  sample("generic-secret", '{"client_secret": "', chars(ALNUM, 32, 29), '"}'),
];

/** Text every rule must let through: hashes, UUIDs, images, placeholders, documentation examples. */
export const NEAR_MISSES: Array<{ name: string; text: string }> = [
  { name: "a sha256 hash", text: `sha256: ${chars(HEX, 64, 40)}` },
  { name: "a git commit", text: `commit ${chars(HEX, 40, 41)}\nAuthor: A <a@b.c>` },
  { name: "a UUID", text: `request_id: 123e4567-e89b-12d3-a456-426614174000, token: 9b2c6f1e-3d4a-4f5b-8c7d-2e1f0a9b8c7d` },
  { name: "base64 of an image", text: `data:image/png;base64,${chars(B64, 20_000, 42)}==` },
  { name: "placeholder sk-...", text: 'client = OpenAI(api_key="sk-...")  # or sk-proj-... or sk_test_... or ghp_xxx' },
  { name: "placeholder variables", text: 'password = "${DB_PASSWORD}"\napi_key = os.environ["OPENAI_API_KEY"]\ntoken: <your-token-here>' },
  { name: "AWS documentation example", text: "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
  { name: "a placeholder database URL", text: "postgres://user:password@localhost:5432/db and redis://:${REDIS_PASSWORD}@cache:6379" },
  { name: "a public key", text: `-----BEGIN PUBLIC KEY-----\n${chars(B64, 64, 43)}\n-----END PUBLIC KEY-----` },
  { name: "a PEM placeholder", text: "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----" },
  { name: "prose about tokens", text: "The max_tokens field caps the answer; each token costs money. Set your password in the settings page." },
  { name: "low-entropy assignment", text: 'password = "aaaaaaaaaaaaaaaa"' },
  { name: "code reading a token", text: "const accessToken = res.body.access_token;\nrefresh_token: session.refreshToken, token: string" },
  { name: "words ending in sk-", text: "a task-based plan, a desk-top view, risk-free" },
];
