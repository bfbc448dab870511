import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The commit this code was built from: APP_COMMIT when a deployment sets it, else git's, else none. */
function commit(): string | null {
  if (process.env.APP_COMMIT) return process.env.APP_COMMIT;
  try {
    return (
      execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: root, stdio: ["ignore", "pipe", "ignore"], timeout: 5000 })
        .toString()
        .trim() || null
    );
  } catch {
    return null; // no git, or not a checkout (a copied release)
  }
}

/** The running version, read once: package.json's version and, when known, the commit. */
export const appVersion: { version: string; commit: string | null } = {
  version: JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version,
  commit: commit(),
};
