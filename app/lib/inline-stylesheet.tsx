import { createContext, useContext, useState } from "react";
import { useHydrated } from "../components/ui/hydrated";
import { INLINE_ID, stylesheetComplete } from "./stylesheet-complete";

/**
 * The stylesheet's text where the document inlines it: given by the server's entry; in the browser, read back from
 * the document itself (the page's script never carries it).
 */
export const StylesheetText = createContext<string>(typeof document === "undefined" ? "" : (document.getElementById(INLINE_ID)?.textContent ?? ""));

/**
 * The stylesheet: inside the document when the root loader said so (`inline`, the browser's first document: the
 * part of it the page uses, decision 093), else linked. Chosen once for the page's life: a later loader answer
 * never swaps a style in use for a link still loading. Once interactive, a page that inlined it links the whole
 * file: what the page draws later is styled once it is in (app/lib/stylesheet-complete.ts), and the next document,
 * which links it, finds it in the browser's cache.
 */
export function Stylesheet({ href, inline }: { href: string; inline: boolean }) {
  const text = useContext(StylesheetText);
  const [inlined] = useState(inline && text !== "");
  const hydrated = useHydrated();
  if (!inlined) return <link rel="stylesheet" href={href} />;
  return (
    <>
      {/* data-href: which built file it is (a script or a test reading the document finds the asset by it). */}
      <style id={INLINE_ID} data-href={href} dangerouslySetInnerHTML={{ __html: text }} />
      {hydrated ? <link rel="stylesheet" href={href} onLoad={stylesheetComplete} onError={stylesheetComplete} /> : null}
    </>
  );
}
