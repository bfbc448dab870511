import { createContext, useContext } from "react";

const ID = "prepared-formats";

/**
 * The script that prepares the page's formatters (app/lib/format.ts, PREPARE_MONEY_FORMAT, decision 094): given by
 * the server's entry; in the browser, read back from the document (the page's script never carries it).
 */
export const PreparedFormats = createContext<string>(typeof document === "undefined" ? "" : (document.getElementById(ID)?.textContent ?? ""));

/** In the document, so that it runs while the page's modules are on their way. */
export function PrepareFormats({ nonce }: { nonce?: string }) {
  const text = useContext(PreparedFormats);
  return text ? <script id={ID} nonce={nonce} dangerouslySetInnerHTML={{ __html: text }} /> : null;
}
