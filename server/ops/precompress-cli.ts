import path from "node:path";
import { precompressAssets } from "../http/precompressed";

/** `npm run build`'s last step (decision 088): brotli and gzip siblings of the build's assets, served as such. */
const dir = path.resolve(process.env.BUILD_DIR || "build", "assets");
const started = Date.now();
const count = await precompressAssets(dir);
console.log(`precompressed ${count} assets in ${dir} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
