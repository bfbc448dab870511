import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP_COMMAND, APP_NODE_FLAGS } from "../../server/heap";

/**
 * V8 reads some of the app's flags only at a process's start (server/heap.ts): every way the app is started must
 * pass them, or its memory is not what docs/benchmarks.md measured.
 */
const ROOT = path.resolve(__dirname, "../..");

describe("the app's start command", () => {
  const command = `node ${APP_COMMAND.join(" ")}`;

  it("is the same in npm start, npm run dev and the systemd unit", () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts;
    expect(scripts.start).toBe(`npm run build && ${command}`);
    expect(scripts.dev).toBe(`npm run build && ${command}`);
    const unit = fs.readFileSync(path.join(ROOT, "deploy/leaddesk.service"), "utf8");
    expect(unit).toContain(`\nExecStart=/usr/bin/${command}\n`);
  });

  it("keeps the young generation small in this Node (a renamed or dropped flag fails here)", () => {
    // Objects that survive a while, as an import's rows do: V8 grows the young generation to its largest.
    const churn = `const keep = []; for (let i = 0; i < 3e6; i++) { const o = { i, s: "x" + i }; keep.push(o); if (keep.length > 20000) keep.length = 0; }
      console.log(require("node:v8").getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size)`;
    const newSpace = (flags: string[]) => Number(execFileSync(process.execPath, [...flags, "-e", churn], { encoding: "utf8" }).trim()) / 2 ** 20;
    expect(newSpace(APP_NODE_FLAGS)).toBeLessThanOrEqual(8);
    expect(newSpace([])).toBeGreaterThan(8);
  });
});
