import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The dark theme changes colours only: every `dark:` class of the pages is a colour (text, background, border,
 * divide, ring, stroke, fill), and the stylesheet's `.dark` rules set colours too. The screens walk relies on it:
 * in CI it checks words and layout in the light theme and opens the dark one for axe-core's contrast alone.
 */
const COLOUR =
  /^(text|bg|border|divide|ring|stroke|fill|placeholder|outline|decoration|from|via|to|shadow|caret|accent)-([a-z]+-\d{2,3}(\/\d+)?|white|black|transparent|current|inherit|\[#[0-9a-f]{3,8}\])$|^ring-[01]$|^\[&_[a-z]+\]:text-[a-z]+-\d{3}$/;

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : /\.(tsx?|css)$/.test(entry.name) ? [full] : [];
  });
}

describe("the dark theme", () => {
  it("has colour classes only, so a page's boxes and words are the light theme's", () => {
    const found = new Map<string, string>();
    for (const file of files("app")) {
      for (const [, utility] of fs.readFileSync(file, "utf8").matchAll(/\bdark:([^\s"'`};]+)/g)) {
        // Variants (hover:, focus:, …) in front of the utility do not change what it sets.
        const base = utility.replace(
          /^((hover|focus|focus-visible|focus-within|disabled|group-hover|checked|active|enabled|placeholder|aria-[a-z]+):)+/,
          "",
        );
        if (!COLOUR.test(base)) found.set(utility, file);
      }
    }
    expect([...found].map(([utility, file]) => `${file}: dark:${utility}`)).toEqual([]);
  });

  it("sets colours only in the stylesheet's .dark rules", () => {
    const css = fs.readFileSync("app/tailwind.css", "utf8");
    const rules = [...css.matchAll(/\.dark[^{]*\{([^}]*)\}/g)].map((m) => m[1]);
    expect(rules.length).toBeGreaterThan(2);
    for (const body of rules) {
      for (const declaration of body
        .split(";")
        .map((d) => d.trim())
        .filter(Boolean)) {
        expect(declaration).toMatch(
          /^(--toast-(bg|fg)|color|border-top-color|background-color)\s*:|^@apply (((hover:)?(border|bg|text)-[a-z]+-\d{2,3})\s*)+$/,
        );
      }
    }
  });
});
