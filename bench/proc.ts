/**
 * Child processes for the benchmark: spawned pinned to a core when `taskset` exists and
 * the machine has 2+ cores, their first JSON line on stdout, and their memory from /proc.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus } from "node:os";

/** Gateway on core 0; load generator, fake upstream and this orchestrator on core 1. */
export const CORES = { gateway: "0", load: "1" } as const;

// os.cpus(), not availableParallelism(): the latter shrinks to 1 once this process is pinned.
export const canPin: boolean = cpus().length >= 2 && spawnSync("taskset", ["-V"]).status === 0;

/** `taskset -c <core> node ...`: taskset execs node, so the child's pid is node's. */
export function spawnPinned(core: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  const [cmd, argv] = canPin ? ["taskset", ["-c", core, process.execPath, ...args]] : [process.execPath, args];
  return spawn(cmd, argv, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ["ignore", "pipe", "pipe"] });
}

/** Pins this process (all its threads) so it does not compete with the gateway's core. */
export function pinSelf(core: string): void {
  if (canPin) spawnSync("taskset", ["-a", "-cp", core, String(process.pid)], { stdio: "ignore" });
}

/** Resolves with the first stdout line that parses as JSON; rejects if the child exits first. */
export function firstJsonLine<T>(child: ChildProcess, what: string, timeoutMs = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const onErr = (d: Buffer) => (err = (err + d.toString()).slice(-4000));
    const onOut = (d: Buffer) => {
      out += d.toString();
      for (const line of out.split("\n")) {
        if (!line.trim().startsWith("{")) continue;
        try {
          const value = JSON.parse(line) as T;
          done();
          return resolve(value);
        } catch {
          // an incomplete line: wait for the rest
        }
      }
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`${what} exited (${code}) before reporting:\n${err}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${what}: no output after ${timeoutMs} ms\n${err}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      child.stderr?.off("data", onErr);
      child.stdout?.off("data", onOut);
      child.off("exit", onExit);
    };
    child.stderr?.on("data", onErr);
    child.stdout?.on("data", onOut);
    child.once("exit", onExit);
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** VmRSS / VmHWM (peak) of a process in MB, from /proc; null where /proc is missing. */
export function memoryOf(pid: number): { rssMb: number; hwmMb: number } | null {
  const file = `/proc/${pid}/status`;
  if (!existsSync(file)) return null;
  const status = readFileSync(file, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 };
}

/** Polls VmRSS while a run is in flight; stop() returns the peak seen (MB). */
export function sampleRss(pid: number, everyMs = 50): { stop(): number } {
  let peak = 0;
  const take = () => (peak = Math.max(peak, memoryOf(pid)?.rssMb ?? 0));
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

export function stop(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}
