/**
 * Bursts of other work (a tsc, a test run) skew a measurement: one during which other
 * processes used more than OTHER_CPU_WARN_PCT of the machine is retried while the retry
 * budget allows, and the quietest attempt is kept (`npm run bench`, run.ts).
 */
import { meterForeignCpu } from "./cpu.js";
import { measure, type Case, type Measurement, type Target } from "./load.js";
import { OTHER_CPU_WARN_PCT } from "./report.js";

const MAX_ATTEMPTS = 3;
/** Seconds all retries together may take, so a busy machine still finishes in ~3 minutes. */
export const RETRY_BUDGET_S = 40;

export type QuietMeasurement = Measurement & { otherCpuPct: number | null };

/** A measuring function with its own retry budget, shared by every case it measures. */
export function quietMeasurer(timing: { warmupS: number; durationS: number }, log: (line: string) => void) {
  let retriedS = 0;
  return async (target: Target, c: Case, pids: number[], gatewayPid?: number): Promise<QuietMeasurement> => {
    let best: QuietMeasurement | undefined;
    let peakRss = 0;
    for (let attempt = 1; ; attempt++) {
      const meter = meterForeignCpu(() => pids);
      const m = await measure(target, c, timing, gatewayPid);
      const other = meter?.stop() ?? null;
      peakRss = Math.max(peakRss, m.gatewayPeakRssMb ?? 0);
      if (!best || (other ?? 0) < (best.otherCpuPct ?? 0)) best = { ...m, otherCpuPct: other };
      const cost = timing.warmupS + timing.durationS;
      if (other === null || other <= OTHER_CPU_WARN_PCT || attempt >= MAX_ATTEMPTS || retriedS + cost > RETRY_BUDGET_S) break;
      retriedS += cost;
      log(`  ${target.name}: other processes used ${other.toFixed(0)} % of the machine, measuring again`);
    }
    return { ...best, gatewayPeakRssMb: gatewayPid === undefined ? null : peakRss };
  };
}
