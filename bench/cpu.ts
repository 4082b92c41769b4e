/**
 * How much of the machine other processes used while we measured: the system's busy CPU
 * time (/proc/stat) minus the benchmark's own (this process with its reaped children, the
 * gateway and the fake upstream). On a shared machine this says which numbers to distrust.
 */
import { existsSync, readFileSync } from "node:fs";
import { cpus } from "node:os";

export const HZ = 100; // USER_HZ: /proc reports CPU time in 1/100 s on Linux

function systemBusyTicks(): number {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return user + nice + system + irq + softirq + steal;
}

/** utime + stime (+ cutime + cstime: children already waited for, e.g. finished load workers). */
export function processTicks(pid: number | "self", withChildren: boolean): number {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return 0;
  const text = readFileSync(file, "utf8");
  // Fields after the parenthesised command name; utime is field 14 overall, index 11 here.
  const f = text
    .slice(text.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  return f[11]! + f[12]! + (withChildren ? f[13]! + f[14]! : 0);
}

export interface CpuMeter {
  /** Share of all cores (%) used by other processes since start. */
  stop(): number;
}

export function meterForeignCpu(pids: () => number[]): CpuMeter | null {
  if (!existsSync("/proc/stat")) return null;
  const ours = () => processTicks("self", true) + pids().reduce((sum, pid) => sum + processTicks(pid, false), 0);
  const t0 = performance.now();
  const sys0 = systemBusyTicks();
  const ours0 = ours();
  return {
    stop() {
      const elapsedS = (performance.now() - t0) / 1000;
      const foreign = systemBusyTicks() - sys0 - (ours() - ours0);
      return Math.max(0, (100 * foreign) / (elapsedS * HZ * cpus().length));
    },
  };
}
