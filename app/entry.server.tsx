import { Transform } from "node:stream";
import type { AppLoadContext, EntryContext, HandleErrorFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { NonceProvider } from "./lib/nonce";
import { PreparedFormats } from "./lib/prepared-formats";
import { PREPARE_MONEY_FORMAT } from "./lib/format";
import { databaseUnavailablePage, isDatabaseUnavailable } from "./errors.server";
import { firstModules } from "../common/first-modules";
import { StylesheetText } from "./lib/inline-stylesheet";
import { stylesheetPart, STYLESHEET_PART, stylesheetText } from "./stylesheet.server";
import stylesheet from "./tailwind.css";

/** The status press sent by the lead panel's script, which server/web.ts serves at PRESS_PATH (decision 068). */
export { press } from "./press.server";

const ABORT_DELAY = 5_000;

/**
 * Remix's Node entry, with three changes: the CSP nonce of this response goes to every inline script React and
 * Remix write, NUL bytes are dropped from the stream (docs/decisions/002), and a document that inlines the
 * stylesheet (a browser's first, decision 090) carries the part of it the page uses (decision 093): rendered whole
 * first, to read which classes it names, then sent.
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  // A loader could not reach the database: the Russian 503 page, not the error boundary's 500.
  if (loadContext.databaseUnavailable) return databaseUnavailablePage();
  // Crawlers and SPA mode get the whole document at once; browsers get the shell as soon as it is ready.
  const waitForAll = isbot(request.headers.get("user-agent") ?? "") || remixContext.isSpaMode;
  const nonce = loadContext.cspNonce;
  const partOfStylesheet = stylesheetPart(request, stylesheet);

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const ready = () => {
      shellRendered = true;
      const body = withoutNulBytes();
      responseHeaders.set("Content-Type", "text/html; charset=utf-8");
      if (partOfStylesheet) {
        const chunks: Buffer[] = [];
        body.on("data", (chunk: Buffer) => chunks.push(chunk));
        body.on("end", () => {
          const html = Buffer.concat(chunks).toString("utf8");
          const matched = remixContext.staticHandlerContext.matches.map((match) => match.route.id);
          const css = partOfStylesheet(html, firstModules(remixContext.manifest, matched));
          resolve(
            new Response(
              html.replace(STYLESHEET_PART, () => css),
              { headers: responseHeaders, status: responseStatusCode },
            ),
          );
        });
      } else {
        resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }));
      }
      pipe(body);
    };
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <StylesheetText.Provider value={partOfStylesheet ? STYLESHEET_PART : (stylesheetText(stylesheet) ?? "")}>
          <PreparedFormats.Provider value={PREPARE_MONEY_FORMAT}>
            <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
          </PreparedFormats.Provider>
        </StylesheetText.Provider>
      </NonceProvider>,
      {
        nonce,
        onShellReady: waitForAll || partOfStylesheet ? undefined : ready,
        onAllReady: waitForAll || partOfStylesheet ? ready : undefined,
        onShellError: reject,
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors inside the shell reject and are logged by Remix; later ones only reach us here.
          if (!shellRendered) return;
          if (loadContext.log) loadContext.log.error({ err: error }, "render error");
          else console.error(error);
        },
      },
    );
    setTimeout(abort, ABORT_DELAY);
  });
}

/**
 * Every error a loader or action threw (Remix logs nothing itself once this exists). A database outage is noted on
 * the request's context for the 503 page above and logged in one line; any other failure is logged whole.
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  // A client's mistake Remix answers itself (405 for a post to a page without an action): no stack to log.
  if (request.signal.aborted || isRouteErrorResponse(error)) return;
  const path = new URL(request.url).pathname;
  if (isDatabaseUnavailable(error)) {
    context.databaseUnavailable = true;
    context.deps?.metrics.databaseUnavailable();
    if (context.log) context.log.warn({ path }, "database unavailable");
    else console.error(`База данных недоступна: ${request.method} ${path}`);
    return;
  }
  if (context.log) context.log.error({ err: error, path }, "unhandled error");
  else console.error(error);
};

/**
 * React 18's streaming renderer can flush its whole 2 KB buffer when a multi-byte character (all of our Cyrillic)
 * does not fit at its end, leaking NUL bytes into the HTML (react#26228, fixed only in React 19, which Remix 2
 * rejects). A NUL never belongs in HTML, so drop every one on the way out.
 */
function withoutNulBytes() {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (chunk.indexOf(0) === -1) return callback(null, chunk);
      callback(null, Buffer.from(chunk.filter((byte) => byte !== 0)));
    },
  });
}
