/** The machine, processes' memory and directories' sizes, as the bench reports them. */
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";

export interface Machine {
  cpu: string;
  cores: number;
  ram_gib: number;
  os: string;
  node: string;
  elasticsearch: string | null;
  java: string | null;
  git_commit: string | null;
  git_dirty: boolean | null;
  date: string;
  /** Set by the operator (--shared): other people's jobs ran on the machine during the run. */
  shared: boolean;
  /** Load averages (1, 5, 15 min) when the run started and when it ended. */
  load_at_start: number[];
  load_at_end?: number[];
  /** The bench's own niceness (others' work wins the CPU when it is > 0). */
  nice: number;
}

function run(command: string, args: string[], cwd?: string): string | null {
  try {
    return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch {
    return null;
  }
}

function cpuModel(): string {
  const fromOs = cpus()[0]?.model?.trim();
  const lscpu = run("lscpu", []);
  const model = lscpu && /Model name:\s*(.+)/.exec(lscpu)?.[1]?.trim();
  return model || fromOs || "unknown";
}

export function machine(repo: string, shared: boolean): Machine {
  const status = run("git", ["status", "--porcelain"], repo);
  // `java -version` prints on stderr.
  const java = spawnSync("java", ["-version"], { encoding: "utf8" });
  const javaVersion = `${java.stdout ?? ""}${java.stderr ?? ""}`.trim().split("\n")[0] || null;
  return {
    cpu: cpuModel(),
    cores: cpus().length,
    ram_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${process.platform} ${release()}`,
    node: process.version,
    elasticsearch: null,
    java: javaVersion,
    git_commit: run("git", ["rev-parse", "HEAD"], repo),
    git_dirty: status === null ? null : status.length > 0,
    date: new Date().toISOString(),
    shared,
    load_at_start: currentLoad(),
    nice: niceness(),
  };
}

function niceness(): number {
  // Field 19 of stat, the nice value, is at 16 after the command's ")".
  return Number(statFields(process.pid)?.[16] ?? 0);
}

export interface ProcessMemory {
  /** Resident set size now, MiB. */
  rss_mib: number;
  /** Peak resident set size, MiB. */
  peak_rss_mib: number;
  /** Anonymous (heap, stacks) and file-backed (mapped files) parts of the RSS, MiB. */
  anon_mib: number;
  file_mib: number;
}

/** A process's memory from /proc/<pid>/status (Linux), or null. */
export function processMemory(pid: number): ProcessMemory | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    const mib = (k: number) => Math.round(k / 1024);
    return { rss_mib: mib(kib("VmRSS")), peak_rss_mib: mib(kib("VmHWM")), anon_mib: mib(kib("RssAnon")), file_mib: mib(kib("RssFile")) };
  } catch {
    return null;
  }
}

/** The memory of a process and all its descendants (a server's cluster workers), summed (shared pages count once per process), or null. */
export function processTreeMemory(pid: number): ProcessMemory | null {
  if (!processMemory(pid)) return null;
  const sum = { rss_mib: 0, peak_rss_mib: 0, anon_mib: 0, file_mib: 0 };
  for (const memory of processTree(pid).map(processMemory)) {
    if (!memory) continue;
    for (const key of Object.keys(sum) as (keyof ProcessMemory)[]) sum[key] += memory[key];
  }
  return sum;
}

/**
 * CPU seconds (user and system, every thread) a process and its living descendants have used so
 * far, from /proc/<pid>/stat; null when the process is gone. The difference of two readings is the
 * CPU a server spent between them, apart from the load generator that shares the machine.
 */
export function processTreeCpuSeconds(pid: number): number | null {
  const ticks = processTree(pid)
    .map((p) => statFields(p))
    .filter((f): f is string[] => f !== null);
  if (ticks.length === 0) return null;
  // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the command's ")".
  return ticks.reduce((sum, f) => sum + Number(f[11]) + Number(f[12]), 0) / clockTicksPerSecond();
}

/** A process and every descendant, the process first. */
function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields) parents.set(Number(entry), Number(fields[1]));
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** The fields of /proc/<pid>/stat after "pid (comm) " (comm may hold spaces and parentheses), or null once the process has exited. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

let clockTicks: number | null = null;
/** The unit of /proc's CPU times (sysconf CLK_TCK, 100 on every Linux this runs on, asked once). */
function clockTicksPerSecond(): number {
  clockTicks ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  return clockTicks;
}

/** Bytes used on disk under a path (allocated blocks, as `du` counts). */
export function diskUsage(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.blocks * 512;
  let total = st.blocks * 512;
  for (const entry of readdirSync(path)) total += diskUsage(join(path, entry));
  return total;
}

/**
 * Reads every file under `dir` once, so that the OS page cache holds them, and returns the bytes
 * read. A data directory written by an earlier run may have left the cache (a restart, or this
 * machine's VM dropping it within minutes: measured on a 470 MB SQLite file): its memory-mapped graphs and SQLite pages would then come from disk during the first load runs.
 */
export function readIntoPageCache(dir: string): number {
  const buffer = Buffer.allocUnsafe(16 * 2 ** 20);
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const path = join(dir, entry);
    if (!statSync(path).isFile()) continue;
    const fd = openSync(path, "r");
    try {
      for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) total += read;
    } finally {
      closeSync(fd);
    }
  }
  return total;
}

export const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
export const currentLoad = () => loadavg().map((l) => Math.round(l * 100) / 100);
