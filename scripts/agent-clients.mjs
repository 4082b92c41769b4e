// Installs the coding-agent clients the tests run (test/agents/clients.json) into
// node_modules/.agent-clients when they are missing or at another version. They stay out of
// package-lock.json: opencode-ai's optional per-platform packages make `npm ci` fail on a
// lockfile that holds it, and `npm install` of the pinned versions does not.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const prefix = join(root, "node_modules", ".agent-clients");
const { "//": _why, ...clients } = JSON.parse(readFileSync(join(root, "test", "agents", "clients.json"), "utf8"));
const wanted = JSON.stringify(clients);
const marker = join(prefix, "installed.json");

if (existsSync(marker) && readFileSync(marker, "utf8") === wanted) process.exit(0);
mkdirSync(prefix, { recursive: true });
writeFileSync(join(prefix, "package.json"), JSON.stringify({ name: "agent-clients", private: true }));
const specs = Object.entries(clients).map(([name, version]) => `${name}@${version}`);
// Announced before npm starts: the first run downloads about 1.3 GB with little output (README, "Set up").
console.log(`installing the coding-agent clients the tests run into node_modules/.agent-clients, once (about 1.3 GB, ~40 s): ${specs.join(" ")}`);
execFileSync("npm", ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--engine-strict=false", "--prefix", prefix, ...specs], {
  stdio: ["ignore", "inherit", "inherit"],
});
writeFileSync(marker, wanted);
