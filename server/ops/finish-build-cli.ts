import path from "node:path";
import { buildDir } from "../http/build-files";
import { precompressAssets } from "../http/precompressed";
import { minifyScripts } from "./minify-scripts";
import { writeStylesheetIndex } from "./stylesheet-index";

/**
 * `npm run build`'s last steps, after `remix build`: the browser's scripts minified again by terser (issue 41 item
 * 15), the stylesheet's index for a first document's part of it (decision 093), then brotli and gzip siblings of
 * the build's assets, served as such (decision 088).
 */
const build = buildDir();
const dir = path.join(build, "assets");
const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);
let started = Date.now();
const minified = await minifyScripts(dir);
console.log(`minified ${minified} scripts again with terser in ${dir} (${seconds(started)} s)`);
started = Date.now();
const classes = writeStylesheetIndex(build);
console.log(`indexed the stylesheet's ${classes} classes (${seconds(started)} s)`);
started = Date.now();
const count = await precompressAssets(dir);
console.log(`precompressed ${count} assets in ${dir} (${seconds(started)} s)`);
