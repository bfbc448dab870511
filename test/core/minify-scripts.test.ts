import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { minifyScripts } from "../../server/ops/minify-scripts";

/**
 * Issue 41 item 15: the build's scripts minified again by terser before they are compressed (`npm run build`,
 * server/ops/finish-build-cli.ts). What esbuild left (here written out by hand) goes; what the module does stays.
 */
let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, code: string): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, code);
  return file;
}

describe("the build's scripts minified again", () => {
  it("shorter, doing the same, its legal comment kept; a script already compressed is left alone", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "minify-scripts-"));
    const source = `/*! Bundled license information: the lib's MIT notice */
function unusedHelper(value) { return value * 2; }
var count = 0;
function next(step) { if (step === void 0) { step = 1; } count = count + step; return count; }
export { next };
`;
    const file = write("_shared/chunk-A.js", source);
    const compressed = write("chunk-B.js", source);
    fs.writeFileSync(`${compressed}.br`, "");

    expect(await minifyScripts(dir)).toBe(1);
    const minified = fs.readFileSync(file, "utf8");
    expect(minified.length).toBeLessThan(source.length);
    expect(minified).not.toContain("unusedHelper");
    expect(minified).toContain("the lib's MIT notice");
    const { next } = await import(pathToFileURL(file).href);
    expect([next(), next(2)]).toEqual([1, 3]);
    expect(fs.readFileSync(compressed, "utf8")).toBe(source);
    expect(fs.readdirSync(dir, { recursive: true }).filter((name) => String(name).endsWith(".tmp"))).toEqual([]);
  });
});
