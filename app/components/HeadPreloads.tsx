import { UNSAFE_RemixContext, useMatches } from "@remix-run/react";
import { useContext, useState } from "react";
import { firstModules } from "../../common/first-modules";

/**
 * Decision 090, the slow link: the page's first modules named in the <head>, the same list `<Scripts/>` preloads
 * at the end of the body (the route manifest, the entry and its chunks, each matched route's module and chunks).
 * The browser reads the head while the rest of the document is still arriving and asks for them then: on a link
 * of 400 kbit/s and 300 ms their round trip began only once the whole document was in (~150 ms of it for a 7 KB
 * page), the link idle meanwhile. The browser keeps one copy of each module: Scripts' own links fetch nothing
 * more. The list is the first page's and stays as it is (later pages load their modules as the router asks).
 */
export function HeadPreloads() {
  const remix = useContext(UNSAFE_RemixContext);
  const matches = useMatches();
  const [modules] = useState(() =>
    remix
      ? firstModules(
          remix.manifest,
          matches.map((match) => match.id),
        )
      : [],
  );
  return (
    <>
      {modules.map((href) => (
        <link key={href} rel="modulepreload" href={href} />
      ))}
    </>
  );
}
