// BUILD_DIR lets several builds live side by side (parallel work, benchmarks); the default is ./build.
const out = process.env.BUILD_DIR || "build";

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/.*", "**/*.test.*"],
  serverModuleFormat: "esm",
  serverBuildPath: `${out}/index.js`,
  assetsBuildDirectory: `${out}/assets`,
  publicPath: "/build/",
  tailwind: true,
  postcss: true,
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    // Off (decision 088): with it each page asked for /__manifest after hydration (the lead panel twice), a round
    // trip of 300 ms and more on a slow link, and a link to a route not yet discovered paid another on its click.
    // Without it the whole route manifest (~4 KB compressed) comes with the page's first chunks.
    v3_lazyRouteDiscovery: false,
    v3_singleFetch: true,
  },
};
