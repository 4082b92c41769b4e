/**
 * Dashboard passwords: scrypt from node:crypto (memory-hard, no native dependency). The stored
 * form names its parameters (`scrypt$N$r$p$salt$hash`), so they can be raised later without
 * breaking existing hashes.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

const N = 32_768;
const R = 8;
const P = 1;
const KEY_LENGTH = 64;

function derive(password: string, salt: Buffer, o: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...o, maxmem: 256 * o.N * o.r };
  return new Promise((resolve, reject) => scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** A hash that cannot be parsed never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [name, n, r, p, salt, hash] = stored.split("$");
  if (name !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const key = await derive(password, Buffer.from(salt, "base64"), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** For unknown emails: the same work as a real check, so timing does not tell which emails exist. */
const DUMMY = hashPassword(randomBytes(16).toString("hex"));
export async function burnPasswordCheck(password: string): Promise<void> {
  await verifyPassword(password, await DUMMY);
}
