import fs from "node:fs";
import path from "node:path";
import { minify } from "terser";

/**
 * Issue 41 item 15, the slow link: the browser's scripts minified again, by terser, before they are compressed.
 * esbuild's minifier (the one `remix build` runs) leaves what terser's compressor takes out: in brotli, 2.0 KB of
 * Remix's chunk, 0.4 of React's, 2.6 KB of what /auth loads before it is interactive and 3.6-3.7 of what / and
 * /leadpanel do, for ~8 s more build on two cores. Safe options only (none of terser's `unsafe*`); the chunks are ES
 * modules (`module`: strict, their top-level names mangled too); one pass, terser's default (two took 0.1-0.2 KB more
 * off each page for ~45 % more time). Legal comments stay as esbuild kept them. No source map: the build makes none.
 *
 * A script keeps its name, esbuild's hash of what esbuild wrote: terser gives the same output for the same input, so a
 * name still stands for one content. A script that already has a compressed sibling was minified by an earlier run
 * (precompressAssets then wrote the sibling from it) and is left as it is; so is one terser would make longer (a
 * module that only re-exports: terser's names for its imports can be longer than esbuild's). Each is written under
 * a temporary name and renamed, as precompressAssets does. Returns how many scripts it rewrote.
 */
export async function minifyScripts(dir: string): Promise<number> {
  if (!fs.existsSync(dir)) return 0;
  let rewritten = 0;
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const file = path.join(dir, name);
    if (!file.endsWith(".js") || !fs.statSync(file).isFile()) continue;
    if (fs.existsSync(`${file}.br`) || fs.existsSync(`${file}.gz`)) continue;
    const source = fs.readFileSync(file, "utf8");
    const { code } = await minify(source, { module: true, ecma: 2020 });
    if (code === undefined || Buffer.byteLength(code) >= Buffer.byteLength(source)) continue;
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, code);
    fs.renameSync(temporary, file);
    rewritten++;
  }
  return rewritten;
}
