import fs from "node:fs";
import path from "node:path";
import postcss, { type ChildNode, type Container } from "postcss";
import selectorParser from "postcss-selector-parser";
import { stylesheetIndexPath, type StylesheetIndex, type StylesheetNode } from "../http/critical-stylesheet";

/**
 * `npm run build`'s step for decision 093: the index server/http/critical-stylesheet.ts chooses a first document's
 * part of the stylesheet from. Parsed here, once, with the parsers Tailwind's own build uses (postcss and its
 * selector parser, which unescapes `.hover\:bg-slate-100` and `.\32xl\:block`).
 */

/** The classes a selector needs an element (or its ancestors, siblings) to carry; those inside :not() it does not. */
function classesNeeded(selector: string): string[] {
  const names: string[] = [];
  selectorParser((root) => {
    root.walkClasses((node) => {
      for (let parent = node.parent; parent; parent = parent.parent) {
        if (parent.type === "pseudo" && parent.value === ":not") return;
      }
      names.push(node.value);
    });
  }).processSync(selector);
  return names;
}

/** The class <html> carries in the dark theme (tailwind.config.ts: darkMode "class"). */
const DARK_THEME = "dark";

/** The @-groups whose rules are chosen one by one; any other at-rule (@keyframes, @font-face) is kept whole. */
const GROUPS = new Set(["media", "supports", "container", "layer"]);

export function indexStylesheet(href: string, css: string, scripts: Record<string, string>): StylesheetIndex {
  const classes: string[] = [];
  const ids = new Map<string, number>();
  const id = (name: string) => {
    let found = ids.get(name);
    if (found === undefined) {
      found = classes.length;
      classes.push(name);
      ids.set(name, found);
    }
    return found;
  };
  const convert = (container: Container<ChildNode>): StylesheetNode[] => {
    const nodes: StylesheetNode[] = [];
    container.each((node) => {
      if (node.type === "comment") return;
      if (node.type === "rule") {
        const needs = node.selectors.map((selector) => classesNeeded(selector).map(id));
        const text = node.toString();
        nodes.push(needs.some((classes) => classes.length === 0) ? { css: text } : { css: text, needs });
      } else if (node.type === "atrule" && node.nodes && GROUPS.has(node.name)) {
        nodes.push({ open: `@${node.name}${node.raws.afterName ?? " "}${node.params}`, nodes: convert(node) });
      } else {
        nodes.push({ css: node.toString() });
      }
    });
    return nodes;
  };
  const nodes = convert(postcss.parse(css));
  // A class a script's text contains (in a string, a template, an object's key): the script may give it to an
  // element. A few more than it does (`p-2` inside `p-20`) only keep a rule more. The dark theme's class is the
  // document's own (<html class="dark">): a page changes theme by a form post, a round trip after which the whole
  // stylesheet is in, so a light page carries none of the dark rules (~0.6 KB compressed).
  const modules: Record<string, number[]> = {};
  for (const [url, text] of Object.entries(scripts)) {
    modules[url] = classes.flatMap((name, i) => (name !== DARK_THEME && text.includes(name) ? [i] : []));
  }
  return { href, classes, nodes, modules };
}

/**
 * Writes the index of the build's stylesheet (its one .css under assets/_assets) and scripts beside the build's
 * assets; a build without a stylesheet writes none (documents then link it).
 */
export function writeStylesheetIndex(buildDir: string): number {
  const assets = path.join(buildDir, "assets");
  const files = fs.readdirSync(assets, { recursive: true, encoding: "utf8" }).filter((name) => /\.(js|css)$/.test(name));
  const sheets = files.filter((name) => name.endsWith(".css"));
  if (sheets.length !== 1) {
    fs.rmSync(stylesheetIndexPath(buildDir), { force: true });
    return 0;
  }
  const url = (name: string) => `/build/${name.split(path.sep).join("/")}`;
  const scripts = Object.fromEntries(
    files.filter((name) => name.endsWith(".js")).map((name) => [url(name), fs.readFileSync(path.join(assets, name), "utf8")]),
  );
  const index = indexStylesheet(url(sheets[0]), fs.readFileSync(path.join(assets, sheets[0]), "utf8"), scripts);
  fs.writeFileSync(stylesheetIndexPath(buildDir), JSON.stringify(index));
  return index.classes.length;
}
