/**
 * A private CA and a server certificate for 127.0.0.1 / localhost, made with `openssl` at run
 * time in a temp dir (never committed): the fake upstream serves HTTP/2 over TLS with them and
 * the gateway trusts the CA through `server.upstream.caFile`, as it would a real provider.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface BenchCerts {
  dir: string;
  caFile: string;
  key: Buffer;
  cert: Buffer;
  cleanup(): void;
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** `parent`: where the temp dir goes (the tests pass their own temp root). */
export function makeCerts(parent = tmpdir()): BenchCerts {
  const dir = mkdtempSync(join(parent, "gw-tls-"));
  const at = (f: string) => join(dir, f);
  const ssl = (args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });
  ssl(["req", "-x509", ...EC, "-keyout", at("ca.key"), "-out", at("ca.pem"), "-days", "2", "-subj", "/CN=gateway bench CA"]);
  ssl(["req", ...EC, "-keyout", at("key.pem"), "-out", at("req.csr"), "-subj", "/CN=localhost"]);
  writeFileSync(at("ext.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n");
  ssl([
    "x509",
    "-req",
    "-in",
    at("req.csr"),
    "-CA",
    at("ca.pem"),
    "-CAkey",
    at("ca.key"),
    "-CAcreateserial",
    "-out",
    at("cert.pem"),
    "-days",
    "2",
    "-extfile",
    at("ext.cnf"),
  ]);
  return {
    dir,
    caFile: at("ca.pem"),
    key: readFileSync(at("key.pem")),
    cert: readFileSync(at("cert.pem")),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
