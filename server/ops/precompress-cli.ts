import path from "node:path";
import { precompressAssets } from "../http/precompressed";
import { minifyScripts } from "./minify-scripts";

/**
 * `npm run build`'s last step: the browser's scripts minified again by terser (issue 41 item 15), then brotli and
 * gzip siblings of the build's assets, served as such (decision 088).
 */
const dir = path.resolve(process.env.BUILD_DIR || "build", "assets");
const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);
let started = Date.now();
const minified = await minifyScripts(dir);
console.log(`minified ${minified} scripts again with terser in ${dir} (${seconds(started)} s)`);
started = Date.now();
const count = await precompressAssets(dir);
console.log(`precompressed ${count} assets in ${dir} (${seconds(started)} s)`);
