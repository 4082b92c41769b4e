/** A USD amount in the config, before it becomes nano-USD (core/money.ts): shared by prices and MCP's pricePerCall. */
import { z } from "zod";

/** Amounts become nano-USD (core/money.ts): a 10th decimal is refused here, where the problem gets its file:line. */
export const Money = z
  .union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/, "Expected a decimal USD amount")])
  .refine((v) => !/\.\d{10}|e-/i.test(String(v)), "expected at most 9 decimals (amounts are exact to the nano-USD)");
