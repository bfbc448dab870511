import { describe, expect, it } from "vitest";
import { documentClasses, partOfStylesheet } from "../../server/http/critical-stylesheet";
import { indexStylesheet } from "../../server/ops/stylesheet-index";

/**
 * Decision 093: the part of the stylesheet a first document inlines. The rules are Tailwind's own output (escaped
 * class names, variants, @media groups); what a page names keeps exactly the rules that can apply to it.
 */
const CSS = [
  "*,:before,:after{box-sizing:border-box}",
  "@keyframes spin{to{transform:rotate(360deg)}}",
  ".btn{display:inline-flex}",
  ".p-2{padding:.5rem}",
  ".p-20{padding:5rem}",
  ".hover\\:bg-slate-100:hover{background:#f1f5f9}",
  ".w-\\[calc\\(100\\%-2rem\\)\\]{width:calc(100% - 2rem)}",
  ".dark\\:bg-slate-900:is(.dark *){background:#0f172a}",
  ".group:hover .group-hover\\:underline{text-decoration:underline}",
  ".space-y-2>:not([hidden])~:not([hidden]){margin-top:.5rem}",
  ".peer:not(.hidden)~.peer-x{color:red}",
  ".a,.b{color:blue}",
  "@media (min-width:640px){.sm\\:flex{display:flex}.sm\\:p-2{padding:.5rem}}",
  "@media (min-width:1536px){.\\32xl\\:block{display:block}}",
].join("");

const index = indexStylesheet("/build/_assets/tailwind-X.css", CSS, {
  "/build/a.js": 'e("div",{className:"sm:flex w-[calc(100%-2rem)] dark:bg-slate-900"})',
  "/build/b.js": "{btn:!0}",
});

const part = (names: string[], modules: string[] = []) => partOfStylesheet(index, names, modules);

describe("a first document's part of the stylesheet", () => {
  it("keeps the base rules and keyframes always, and only the classes named", () => {
    expect(part([])).toBe("*,:before,:after{box-sizing:border-box}@keyframes spin{to{transform:rotate(360deg)}}");
    expect(part(["p-2"])).toContain(".p-2{padding:.5rem}");
    expect(part(["p-2"])).not.toContain(".p-20");
  });

  it("reads Tailwind's escaped names: variants, arbitrary values, a leading digit", () => {
    expect(index.classes).toEqual(
      expect.arrayContaining(["hover:bg-slate-100", "w-[calc(100%-2rem)]", "dark:bg-slate-900", "dark", "2xl:block", "sm:flex"]),
    );
    expect(part(["hover:bg-slate-100"])).toContain(".hover\\:bg-slate-100:hover{background:#f1f5f9}");
    expect(part(["2xl:block"])).toBe(`${part([])}@media (min-width:1536px){.\\32xl\\:block{display:block}}`);
  });

  it("needs every class a selector names, but not one under :not()", () => {
    expect(part(["group-hover:underline"])).not.toContain("underline");
    expect(part(["group", "group-hover:underline"])).toContain(".group:hover .group-hover\\:underline");
    expect(part(["dark:bg-slate-900"])).not.toContain("#0f172a");
    expect(part(["dark:bg-slate-900", "dark"])).toContain("#0f172a");
    expect(part(["peer", "peer-x"])).toContain("color:red");
    expect(part([])).not.toContain("space-y-2");
  });

  it("keeps a rule for any of its selectors, and an @media group only with a rule inside", () => {
    expect(part(["b"])).toContain(".a,.b{color:blue}");
    expect(part(["sm:p-2"])).toContain("@media (min-width:640px){.sm\\:p-2{padding:.5rem}}");
    expect(part(["p-2"])).not.toContain("@media");
  });

  it("takes the classes a script's text names, however written, but never the dark theme's own", () => {
    const fromScripts = part([], ["/build/a.js", "/build/b.js"]);
    expect(fromScripts).toContain(".sm\\:flex{display:flex}");
    expect(fromScripts).toContain(".w-\\[calc\\(100\\%-2rem\\)\\]");
    expect(fromScripts).toContain(".btn{display:inline-flex}");
    // The page's <html class="dark"> says the theme, not a script that can switch it.
    expect(fromScripts).not.toContain("#0f172a");
  });

  it("reads the classes a document's elements carry, as React escapes them", () => {
    expect([...documentClasses('<div class="a [&amp;_svg]:w-4"><p class="b  c">x</p><i data-class="d"></i></div>')]).toEqual([
      "a",
      "[&_svg]:w-4",
      "b",
      "c",
    ]);
  });
});
