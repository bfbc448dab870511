import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Servers a test starts as child processes (Kamailio, the app in fault tests) must not outlive the suite, even
 * when the test's worker is killed before its afterAll. Each one is noted as a file named by its pid in the run's
 * folder (made by this file's global setup and passed in LEADDESK_TEST_CHILDREN); its teardown ends what is left.
 */
export function endWithTheRun(child: ChildProcess) {
  const folder = process.env.LEADDESK_TEST_CHILDREN;
  if (!folder || child.pid === undefined) return;
  const note = path.join(folder, String(child.pid));
  fs.writeFileSync(note, "");
  child.once("exit", () => fs.rmSync(note, { force: true }));
}

/**
 * The same for a process the test did not spawn itself (a daemon that telephony/start runs in a process group of its
 * own): the teardown ends its group. Returns what drops the note once the test has ended the process itself.
 */
export function endPidWithTheRun(pid: number): () => void {
  const folder = process.env.LEADDESK_TEST_CHILDREN;
  if (!folder) return () => {};
  const note = path.join(folder, String(pid));
  fs.writeFileSync(note, "");
  return () => fs.rmSync(note, { force: true });
}

/** vitest's globalSetup: the run's folder of children, and at the end SIGKILL to each one's group (or itself). */
export default function setup() {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-children-"));
  process.env.LEADDESK_TEST_CHILDREN = folder;
  return () => endLeftoverChildren(folder);
}

function endLeftoverChildren(folder: string) {
  for (const name of fs.existsSync(folder) ? fs.readdirSync(folder) : []) {
    const pid = Number(name);
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // Gone already, or not a group leader.
      }
    }
  }
  fs.rmSync(folder, { recursive: true, force: true });
}
