import { spawnSync } from "node:child_process";
import dgram from "node:dgram";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { freePorts } from "../helpers/ports";

const root = path.resolve(import.meta.dirname, "../..");

/** Runs vitest on test/fixtures/closing-line (the files FIXTURES names) and returns its exit code and closing line. */
function runFixtures(fixtures: string) {
  const run = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--config", "test/fixtures/closing-line/vitest.config.ts"], {
    cwd: root,
    env: { ...process.env, FIXTURES: fixtures, NO_COLOR: "1", FORCE_COLOR: "0" },
    encoding: "utf8",
    timeout: 60_000,
  });
  const lines = run.stdout.trim().split("\n");
  return { status: run.status, closingLine: lines[lines.length - 1] };
}

describe("the closing line of a test run", () => {
  test("counts a file that fails to load and tests whose beforeAll threw as failed", () => {
    const run = runFixtures("passes,hook-throws,load-fails");
    expect(run.status).toBe(1);
    // 1 passing test; 2 tests that never ran because beforeAll threw; 1 for the file that collected nothing.
    expect(run.closingLine).toBe("1 passed, 3 failed, 0 skipped");
  });

  test("says 0 failed only for a run that passed", () => {
    const run = runFixtures("passes");
    expect(run.status).toBe(0);
    expect(run.closingLine).toBe("1 passed, 0 failed, 0 skipped");
  });

  test("a run that found no test file at all is a failure", () => {
    const run = runFixtures("no-such-file");
    expect(run.status).toBe(1);
    expect(run.closingLine).toBe("0 passed, 1 failed, 0 skipped");
  });
});

// The pretest step (test/system-packages.sh) as a newcomer without root meets it: one exact command, no tests.
const runuser = ["/usr/sbin/runuser", "/sbin/runuser"].find((file) => fs.existsSync(file));
const isRoot = process.getuid?.() === 0;

describe("the system packages check before the tests", () => {
  function check(list: string, asNobody: boolean) {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-packages-"));
    fs.chmodSync(folder, 0o755);
    const file = path.join(folder, "list.txt");
    fs.writeFileSync(file, list);
    // `nobody` runs a copy: the checkout may sit where he cannot reach (root's mode-700 home folder).
    const script = path.join(folder, "system-packages.sh");
    fs.copyFileSync(path.join(root, "test/system-packages.sh"), script);
    fs.chmodSync(script, 0o755);
    const [command, args] = asNobody ? [runuser!, ["-u", "nobody", "--", "bash", script]] : ["bash", [script]];
    return spawnSync(command, args, { env: { ...process.env, SYSTEM_PACKAGES: file }, encoding: "utf8" });
  }

  test("says nothing and goes on when every package is installed", () => {
    const run = check("# a comment\nbash   # the shell\ncoreutils service\n", false);
    expect(run.status).toBe(0);
    expect(run.stdout + run.stderr).toBe("");
  });

  test.skipIf(!isRoot || !runuser)("without root, stops with the one command that installs what is missing", () => {
    const run = check("bash\nleaddesk-no-such-package service\n", true);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("not installed: leaddesk-no-such-package.");
    expect(run.stderr).toContain("  sudo apt-get update && sudo apt-get install -y leaddesk-no-such-package\n");
  });
});

describe("servers the tests start", () => {
  test("do not outlive the run when the worker that started them is killed", () => {
    const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-child-")), "pid");
    const run = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--config", "test/fixtures/closing-line/vitest.config.ts"], {
      cwd: root,
      env: { ...process.env, FIXTURES: "worker-dies", SERVER_PID_FILE: pidFile },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(isRunning(pid)).toBe(false);
  });

  test("are given ports no UDP socket holds (rtpengine's control port is UDP)", async () => {
    // Ports the OS hands out for UDP, as a browser's WebRTC sockets in a test beside hold them: with a thousand held,
    // a port picked as free for TCP alone was one of them ~1 time in 9 (the helper before, CI 2026-12-02).
    const sockets: dgram.Socket[] = [];
    try {
      for (let i = 0; i < 1000; i++) {
        const socket = dgram.createSocket("udp4");
        await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
        sockets.push(socket);
      }
      const held = new Set(sockets.map((socket) => socket.address().port));
      const picked = (await Promise.all(Array.from({ length: 10 }, () => freePorts(20)))).flat();
      expect(picked.filter((port) => held.has(port))).toEqual([]);
    } finally {
      for (const socket of sockets) socket.close();
    }
  });
});

/** A process that exists and is not a zombie (this sandbox's init may never reap the ones that died). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
