import fs from "node:fs";
import path from "node:path";
import { buildDir } from "./build-files";

/**
 * Decision 093, the slow link: a browser's first document carries only the part of the stylesheet its page can
 * use before the whole file is in: the rules whose classes the document names, or the page's first modules (the
 * scripts it loads before it is interactive) could name. The whole file follows once the page is interactive.
 *
 * The build writes an index of the stylesheet (server/ops/stylesheet-index.ts): each rule with the classes it needs,
 * and for each script of the build the classes its text contains. Choosing the part is then set lookups, no CSS
 * parsed per request.
 */

/** A rule kept when one of its selectors finds all the classes it names (`needs`: indexes into `classes`); no
 *  `needs`: always kept (an element's rule, @keyframes, @font-face). A group (`@media …`): kept with what it keeps. */
export type StylesheetNode = { css: string; needs?: number[][] } | { open: string; nodes: StylesheetNode[] };

export interface StylesheetIndex {
  /** The stylesheet's URL, as the page links it (/build/_assets/tailwind-….css). */
  href: string;
  /** Every class a selector of the stylesheet names, unescaped (`hover:bg-slate-100`). */
  classes: string[];
  nodes: StylesheetNode[];
  /** Each script's URL (/build/…js) → the classes (indexes) its text contains. */
  modules: Record<string, number[]>;
}

/** The index beside the build's assets (BUILD_DIR as server/web.ts reads it). */
export const stylesheetIndexPath = (dir = buildDir()) => path.join(dir, "stylesheet-index.json");

let read: { file: string; index: StylesheetIndex | null } | null = null;

/** The build's index, once; null if the build has none (then the whole stylesheet is inlined, as before). */
export function stylesheetIndex(href: string): StylesheetIndex | null {
  const file = stylesheetIndexPath();
  if (read?.file !== file) {
    let index: StylesheetIndex | null = null;
    try {
      index = JSON.parse(fs.readFileSync(file, "utf8")) as StylesheetIndex;
    } catch {
      // A build made without the step: no index.
    }
    read = { file, index };
  }
  // An index of another stylesheet (a build swapped under a running server) is no index.
  return read.index?.href === href ? read.index : null;
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&quot;": '"', "&#x27;": "'", "&lt;": "<", "&gt;": ">" };

/** The classes a document's elements carry (React writes every one as class="…", escaping these five). */
export function documentClasses(html: string): Set<string> {
  const found = new Set<string>();
  for (const [, value] of html.matchAll(/\sclass="([^"]*)"/g)) {
    for (const name of value.replace(/&(amp|quot|#x27|lt|gt);/g, (entity) => ENTITIES[entity]).split(/\s+/)) if (name) found.add(name);
  }
  return found;
}

/**
 * The part of the stylesheet for a document: the rules whose classes `html` names, or one of `modules` (the
 * scripts the page loads before it is interactive) contains; null without the build's index.
 */
export function criticalStylesheet(href: string, html: string, modules: string[]): string | null {
  const index = stylesheetIndex(href);
  return index && partOfStylesheet(index, documentClasses(html), modules);
}

const positions = new WeakMap<StylesheetIndex, Map<string, number>>();

/**
 * The rules of an indexed stylesheet that `classes` (by name) or `modules` (by the classes their text contains)
 * keep. Rules without classes (the base styles, keyframes) are always in; an @media group only with something kept
 * inside it.
 */
export function partOfStylesheet(index: StylesheetIndex, classes: Iterable<string>, modules: string[]): string {
  let byName = positions.get(index);
  if (!byName) positions.set(index, (byName = new Map(index.classes.map((name, i) => [name, i]))));
  const present = new Uint8Array(index.classes.length);
  for (const module of modules) for (const i of index.modules[module] ?? []) present[i] = 1;
  for (const name of classes) {
    const i = byName.get(name);
    if (i !== undefined) present[i] = 1;
  }
  return pickRules(index.nodes, present);
}

/** The rules of `nodes` the classes marked in `present` (by index) keep. */
function pickRules(nodes: StylesheetNode[], present: Uint8Array): string {
  let css = "";
  for (const node of nodes) {
    if ("open" in node) {
      const inner = pickRules(node.nodes, present);
      if (inner) css += `${node.open}{${inner}}`;
    } else if (!node.needs || node.needs.some((classes) => classes.every((i) => present[i] === 1))) {
      css += node.css;
    }
  }
  return css;
}
