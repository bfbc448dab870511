import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every arrow points down (docs/conventions.md, Layers): common ← db ← server/core ← the adapters (API, pages,
 * telephony, realtime, jobs). A file's runtime imports are read from its text; `import type` is erased by the
 * compiler and may point anywhere.
 */
const ROOT = path.resolve(__dirname, "../..");

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** The project files a source file imports at run time, as paths from the repository's root. */
function runtimeImports(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm),
    ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((match) => match[1]);
  return specifiers
    .filter((specifier) => specifier.startsWith(".") || specifier.startsWith("~/") || specifier.startsWith("#server/"))
    .map((specifier) =>
      specifier.startsWith("~/")
        ? path.join("app", specifier.slice(2))
        : specifier.startsWith("#server/")
          ? path.join("server", specifier.slice("#server/".length))
          : path.relative(ROOT, path.resolve(ROOT, path.dirname(file), specifier)),
    );
}

/** A file's relative imports (those the Remix build bundles), as paths from the repository's root. */
function relativeImports(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  return [...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\sfrom\s+)?["'](\.[^"']*)["']/gm)].map((match) =>
    path.relative(ROOT, path.resolve(ROOT, path.dirname(file), match[1])),
  );
}

function violations(files: string[], forbidden: (target: string) => boolean): string[] {
  return files.flatMap((file) =>
    runtimeImports(file)
      .filter(forbidden)
      .map((target) => `${file} → ${target}`),
  );
}

const under =
  (...dirs: string[]) =>
  (target: string) =>
    dirs.some((dir) => target === dir || target.startsWith(`${dir}/`));

/**
 * What core must not import: the adapters, the entry points, and server/auth (argon2, Lucia), which implements the
 * ports core declares in server/core/auth/ports.ts.
 */
const adapters = under("server/api", "server/http", "server/realtime", "server/telephony", "server/jobs", "server/ops", "server/auth");
const entryPoints = ["server/app", "server/main", "server/web", "server/deps"];
const coreMayNotImport = (target: string) => adapters(target) || entryPoints.includes(target);

describe("every arrow points down", () => {
  it("common/ imports nothing of the app's layers", () => {
    expect(violations(sourceFiles("common"), under("db", "server", "app"))).toEqual([]);
  });

  it("db/ imports nothing from server/ or app/", () => {
    expect(violations(sourceFiles("db"), under("server", "app"))).toEqual([]);
  });

  it("server/ imports nothing from app/", () => {
    expect(violations(sourceFiles("server"), under("app"))).toEqual([]);
  });

  it("server/core imports no adapter", () => {
    expect(violations(sourceFiles("server/core"), coreMayNotImport)).toEqual([]);
  });

  it("the browser bundle imports nothing from server/ or db/ (only *.server.ts files reach them)", () => {
    const browserFiles = sourceFiles("app").filter((file) => !/\.server\.tsx?$/.test(file));
    expect(violations(browserFiles, under("server", "db"))).toEqual([]);
  });

  it("the pages reach server/ through #server/ only, so the Remix build imports core instead of bundling a copy", () => {
    // A relative import of server/ or db/ from app/ would put a second copy of core in build/index.js: its own
    // AppError class, its own module state (package.json "imports" maps #server/ to the one server/).
    const relative = sourceFiles("app").flatMap((file) =>
      relativeImports(file)
        .filter(under("server", "db"))
        .map((target) => `${file} → ${target}`),
    );
    expect(relative, 'import these as "#server/…"').toEqual([]);
  });

  it("a route module imports no other route: what two routes share is a module of its own (the press: app/press.server.ts)", () => {
    const routes = sourceFiles("app/routes");
    expect(violations(routes, (target) => target.startsWith("app/routes/"))).toEqual([]);
  });

  it("the Remix build holds no copy of core (the test command builds it first)", () => {
    const build = fs.readFileSync(path.join(ROOT, process.env.BUILD_DIR || "build", "index.js"), "utf8");
    expect(build).toContain('from "#server/core/errors"');
    expect(build).not.toMatch(/\bAppError = class\b|class AppError\b/);
  });

  it("reads the imports it judges (a file known to import across is seen)", () => {
    expect(runtimeImports("app/routes/recordings.$id.tsx")).toContain("app/errors.server");
    const seedImports = runtimeImports("server/seed.ts");
    expect(seedImports).toEqual(expect.arrayContaining(["common/credentials", "db/schema", "server/auth/password"]));
    expect(seedImports).not.toContain("db/client"); // `import type` only
    // An import of server/auth from core is one the rule above refuses.
    expect(seedImports.filter(coreMayNotImport)).toEqual(["server/auth/password"]);
  });
});
