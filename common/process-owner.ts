import fs from "node:fs";

/**
 * The process that owns something it may leave behind when killed (the PGlite lock, an upload being written),
 * written so that a later process can tell whether that owner still runs: the pid and, where /proc exists, the
 * process's start time, so a pid the system has since given to another program does not count as the owner.
 * Text form: `<pid>` or `<pid>-<start>` (start in clock ticks since boot, /proc/<pid>/stat field 22).
 */
export interface ProcessOwner {
  pid: number;
  started: string | null;
}

/** State and start time of a process from /proc, or null (no such process, or no /proc on this system). */
function procStat(pid: number): { state: string; started: string } | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2, the command name, is in parentheses and may hold spaces: fields 3.. follow the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0], started: fields[19] };
  } catch {
    return null;
  }
}

const hasProc = () => fs.existsSync("/proc/self/stat");

export function currentOwner(): ProcessOwner {
  return { pid: process.pid, started: procStat(process.pid)?.started ?? null };
}

export function formatOwner(owner: ProcessOwner): string {
  return owner.started ? `${owner.pid}-${owner.started}` : String(owner.pid);
}

export function parseOwner(text: string): ProcessOwner | null {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (!match || Number(match[1]) <= 0) return null;
  return { pid: Number(match[1]), started: match[2] ?? null };
}

/**
 * Whether the owner still runs. A zombie (killed, not yet reaped by its parent: `kill -9` under a parent that
 * never waits, such as a container's first process) and a pid reused by a process started at another time are
 * not the owner any more.
 */
export function ownerAlive(owner: ProcessOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const stat = procStat(owner.pid);
  if (!stat) return !hasProc(); // without /proc the signal check is all there is
  if (stat.state === "Z" || stat.state === "X") return false;
  return owner.started === null || owner.started === stat.started;
}
