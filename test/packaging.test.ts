/**
 * What ships beside the code: the LICENSE matches package.json, and the systemd unit in
 * docs/gateway.service is one systemd accepts (`systemd-analyze verify`) with the hardening the
 * README promises (docs/upgrading.md).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";

const UNIT = readFileSync("docs/gateway.service", "utf8");
const ANALYZE = "/usr/bin/systemd-analyze";

test("LICENSE is the MIT licence package.json names, by the gateway authors", () => {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { license: string };
  expect(pkg.license).toBe("MIT");
  const text = readFileSync("LICENSE", "utf8");
  expect(text.startsWith("MIT License\n\nCopyright (c) the gateway authors\n")).toBe(true);
  expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
});

test("the systemd unit keeps the process to its database folder", () => {
  const lines = UNIT.split("\n");
  for (const key of [
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    "ReadWritePaths=/var/lib/gateway",
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "CapabilityBoundingSet=",
  ]) {
    expect(lines, key).toContain(key);
  }
  expect(UNIT).toMatch(/^ExecStart=\/usr\/bin\/node \/opt\/gateway\/bin\/gateway\.js serve .*--db \/var\/lib\/gateway\/gateway\.db/m);
});

// Decided here, not skipped: where systemd-analyze exists the unit must verify.
test.runIf(existsSync(ANALYZE))("systemd-analyze verify accepts the unit without a warning", () => {
  const dir = mkdtempSync(join(process.env.GATEWAY_TEST_TMP ?? tmpdir(), "gw-unit-"));
  try {
    // The binaries it names need not exist here: point ExecStart at one that does.
    const file = join(dir, "gateway.service");
    writeFileSync(file, UNIT.replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${process.execPath} `));
    // An unknown key is only a warning on stderr (exit 0): both must be clean.
    const r = spawnSync(ANALYZE, ["verify", "--man=no", file], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
