import path from "node:path";
import { precompressAssets } from "../http/precompressed";
import { writeStylesheetIndex } from "./stylesheet-index";

/**
 * `npm run build`'s last steps: the stylesheet's index for a first document's part of it (decision 093), then
 * brotli and gzip siblings of the build's assets, served as such (decision 088).
 */
const buildDir = path.resolve(process.env.BUILD_DIR || "build");
const dir = path.join(buildDir, "assets");
let started = Date.now();
const classes = writeStylesheetIndex(buildDir);
console.log(`indexed the stylesheet's ${classes} classes (${((Date.now() - started) / 1000).toFixed(1)} s)`);
started = Date.now();
const count = await precompressAssets(dir);
console.log(`precompressed ${count} assets in ${dir} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
