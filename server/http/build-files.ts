import path from "node:path";

/** Where `remix build` wrote its output (BUILD_DIR, as in remix.config.js; several builds can live side by side). */
export const buildDir = () => path.resolve(process.env.BUILD_DIR || "build");

/** The file behind a built asset's URL (`/build/_assets/tailwind-….css` → <build>/assets/_assets/tailwind-….css). */
export const builtAssetFile = (href: string) => path.join(buildDir(), "assets", href.replace(/^\/build\//, ""));
