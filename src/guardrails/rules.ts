/**
 * The built-in secret rules (docs/guardrails.md "Rules"). The facts (prefixes, lengths,
 * alphabets) are the providers' documented key formats, as public rule sets such as
 * gitleaks' record them; the rules are written here for this gateway. Each rule has literal
 * keywords: the prefilter (guardrails/keywords.ts) finds them in one pass and the rule's
 * regex, RE2 syntax run by re2js in linear time, runs only in a window around a keyword hit.
 *
 * Patterns allow an optional backslash before quotes because the first pass over a request
 * runs on its raw JSON, where a quote inside a string is `\"` (guardrails/request.ts).
 */
export interface RuleSpec {
  name: string;
  /** Lower-case literals, one of which every match contains (the text is lower-cased for the prefilter). */
  keywords: readonly string[];
  /** RE2 syntax. */
  pattern: string;
  /** How far before a keyword hit a match may start (default 0). */
  before?: number;
  /** How far after a keyword hit's start a match may end: the window the regex runs in. */
  span: number;
  /**
   * In a stream, how far after a keyword a match may still appear: text after a keyword is
   * held back until a match ends or this many characters went by without one (default `span`).
   */
  settle?: number;
  /** The capture group that is the secret (what `redact` replaces); absent: the whole match. */
  group?: number;
  /** The least Shannon entropy (bits per character) a secret must have; random keys have more than prose. */
  entropy?: number;
  /** Secrets matching this (RE2, case-insensitive) are placeholders or examples, not secrets. */
  placeholder?: string;
  /** One of `chars` occurs within `within` characters of the keyword's start in every match (a cheap check before the regex). */
  near?: { chars: string; within: number };
  /**
   * Every match is `<name> <op> <value>` from the keyword on: a check in plain code walks that
   * shape (name characters, a quote, `=`, `:`, `:=` or `=>`, ten value characters) before the
   * regex runs, so the keyword in code and prose (`token: string`, "the secret manager") costs
   * a few character reads.
   */
  assignment?: boolean;
  /** A catch-all rule: a hit overlapping another rule's hit is dropped (the specific name wins). */
  generic?: boolean;
}

const Q = `\\\\?["'\`]?`; // an optional quote, optionally JSON-escaped
const END = `(?:[^A-Za-z0-9_-]|$)`; // a token ends where its alphabet does
const EXAMPLE = "example";

export const BUILTIN_RULES: readonly RuleSpec[] = [
  {
    // PEM (PKCS#1, PKCS#8, EC, DSA, encrypted) and OpenSSH private keys, and PGP private key blocks.
    name: "private-key",
    keywords: ["private key-----", "private key block-----"],
    pattern: `-----BEGIN[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]{64,}?-----END[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\\s\\\\:-]{64,})`,
    before: 90,
    span: 16384,
  },
  {
    // AWS access key ids: 4-character type prefix + 16 base32 characters.
    name: "aws-access-key-id",
    keywords: ["akia", "asia", "abia", "acca", "a3t"],
    pattern: `\\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})${END}`,
    span: 21,
    group: 1,
    placeholder: EXAMPLE,
  },
  {
    // The 40-character secret access key, recognised by the name it is assigned to.
    name: "aws-secret-access-key",
    keywords: ["secret_access_key", "secretaccesskey", "secret-access-key"],
    pattern: `(?i)secret[_-]?access[_-]?key${Q}\\s*(?::=|=>|=|:)\\s*${Q}([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
    span: 90,
    assignment: true,
    group: 1,
    entropy: 3.5,
    placeholder: EXAMPLE,
  },
  {
    // GitHub tokens: personal (classic), OAuth, user-to-server, server-to-server, refresh; fine-grained PATs.
    name: "github-token",
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    pattern: `\\b((?:ghp|gho|ghu|ghs|ghr)_[0-9A-Za-z]{36}|github_pat_[0-9A-Za-z_]{82})${END}`,
    span: 94,
    group: 1,
  },
  {
    // GitLab personal, deploy, runner and pipeline-trigger tokens (routable ones end in `.` + 9 characters).
    name: "gitlab-token",
    keywords: ["glpat-", "gldt-", "glrt-", "glptt-"],
    pattern: `\\b(gl(?:pat|dt|rt|ptt)-[0-9A-Za-z_-]{20,300}(?:\\.[0-9a-z]{9})?)`,
    span: 320,
    group: 1,
  },
  {
    // Slack bot, user, app-level, refresh and legacy tokens: the prefix, then numeric ids.
    name: "slack-token",
    keywords: ["xoxb-", "xoxp-", "xoxa-", "xoxe-", "xoxo-", "xoxr-", "xoxs-", "xapp-"],
    pattern: `\\b(xox[abeoprs]-[0-9]{8,13}-[0-9A-Za-z-]{8,250}|xapp-[0-9]-[A-Z0-9]{9,12}-[0-9]{10,14}-[a-z0-9]{40,80})`,
    span: 270,
    group: 1,
  },
  {
    name: "slack-webhook",
    keywords: ["hooks.slack.com/"],
    pattern: `hooks\\.slack\\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/]{43,56})`,
    span: 90,
    group: 1,
  },
  {
    // Stripe secret and restricted keys, live, test and sandbox.
    name: "stripe-key",
    keywords: ["sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"],
    pattern: `\\b((?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{10,99})${END}`,
    span: 110,
    group: 1,
  },
  {
    // Google API keys (Gemini, Maps, Firebase...): `AIza` + 35 characters.
    name: "google-api-key",
    keywords: ["aiza"],
    pattern: `\\b(AIza[0-9A-Za-z_-]{35})${END}`,
    span: 40,
    group: 1,
    placeholder: EXAMPLE,
  },
  {
    // OpenAI keys: `sk-`, a project, service-account or admin infix, and `T3BlbkFJ` (base64 of "OpenAI") between two random halves.
    name: "openai-api-key",
    keywords: ["sk-"],
    pattern: `\\b(sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,200}T3BlbkFJ[A-Za-z0-9_-]{20,200})${END}`,
    span: 440,
    settle: 240,
    group: 1,
  },
  {
    // Anthropic API and admin keys: 93 characters, then `AA`.
    name: "anthropic-api-key",
    keywords: ["sk-ant-api03-", "sk-ant-admin01-"],
    pattern: `\\b(sk-ant-(?:api03|admin01)-[A-Za-z0-9_-]{93}AA)${END}`,
    span: 115,
    group: 1,
  },
  { name: "openrouter-api-key", keywords: ["sk-or-v1-"], pattern: `\\b(sk-or-v1-[0-9a-f]{64})${END}`, span: 74, group: 1 },
  { name: "groq-api-key", keywords: ["gsk_"], pattern: `\\b(gsk_[A-Za-z0-9]{52})${END}`, span: 57, group: 1 },
  { name: "xai-api-key", keywords: ["xai-"], pattern: `\\b(xai-[A-Za-z0-9]{80})${END}`, span: 85, group: 1 },
  { name: "huggingface-token", keywords: ["hf_"], pattern: `\\b(hf_[A-Za-z]{34})${END}`, span: 38, group: 1 },
  {
    // A signed JSON Web Token: base64url header and payload (both JSON, so both start `ey`), then a signature.
    name: "jwt",
    keywords: ["eyj"],
    pattern: `\\b(eyJ[A-Za-z0-9_-]{15,}\\.eyJ[A-Za-z0-9_-]{15,}\\.[A-Za-z0-9_-]{16,})`,
    span: 8192,
    settle: 2048,
    group: 1,
  },
  {
    // A database or broker URL with a password in it: the password is the secret.
    name: "database-url",
    keywords: [
      "postgres://",
      "postgresql://",
      "mysql://",
      "mariadb://",
      "mongodb://",
      "mongodb+srv://",
      "redis://",
      "rediss://",
      "amqp://",
      "amqps://",
      "mssql://",
      "sqlserver://",
    ],
    pattern: `(?i)\\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|rediss?|amqps?|mssql|sqlserver)://[^\\s:/@"'<>\\\\]*:([^\\s/@"'<>\\\\]{3,200})@[^\\s/"'<>\\\\]+`,
    span: 520,
    settle: 420,
    near: { chars: "@", within: 420 },
    group: 1,
    placeholder: `^(?:\\*+|x+|\\.+|\\$.*|<.*|\\{.*|%.*|password|passwd|pass|pwd|secret|changeme|your[_-]?password)$`,
  },
  {
    // `password = "..."`, `"token": "..."`, `API_KEY=...`: a high-entropy value assigned to a secret's name.
    name: "generic-secret",
    keywords: ["password", "passwd", "pwd", "secret", "token", "api_key", "apikey", "api-key", "access_key", "accesskey", "auth_key"],
    pattern: `(?i)(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key)[A-Za-z0-9_.-]{0,20}${Q}\\s*(?::=|=>|=|:)\\s*${Q}([^\\s"'\`;,\\\\()<>{}\\[\\]]{10,200})`,
    span: 260,
    settle: 72,
    assignment: true,
    group: 1,
    entropy: 3.5,
    placeholder: `^(?:\\$.*|%.*|\\*+|x+|example.*|.*your[_-].*|.*placeholder.*|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|process\\.env\\..*|os\\.environ.*|env\\..*|[A-Za-z_$][A-Za-z0-9_$]*(?:\\.[A-Za-z_$][A-Za-z0-9_$]*)+)$`,
    generic: true,
  },
];
