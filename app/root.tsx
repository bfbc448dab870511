import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import { useEffect, type ReactNode } from "react";
import { HeadPreloads } from "./components/HeadPreloads";
import { InspectionGuard } from "./components/scripts/InspectionGuard";
import { ServerMessage, Toasts } from "./components/ui/Toasts";
import { useNonce } from "./lib/nonce";
import { PrepareFormats } from "./lib/prepared-formats";
import stylesheet from "./tailwind.css";
import { Stylesheet } from "./lib/inline-stylesheet";
import { data, readFlash, readTheme, stylesheetChoice } from "./server-imports/root.server";

// The stylesheet is the Layout's (<Stylesheet>: inlined in a browser's first document, decision 090).
export const links: LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

export const meta: MetaFunction = () => [{ title: "Лиды" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const theme = await readTheme(request);
  const { flash, clear } = await readFlash(request);
  const css = stylesheetChoice(request, stylesheet);
  const headers = new Headers();
  if (clear) headers.append("Set-Cookie", clear);
  if (css.setCookie) headers.append("Set-Cookie", css.setCookie);
  return data({ theme, flash, inlineCss: css.inline, publicSettings: context.deps.config.publicSettings }, { headers });
}

export function Layout({ children }: { children: ReactNode }) {
  const root = useRouteLoaderData<typeof loader>("root");
  const nonce = useNonce();
  const theme = root?.theme ?? "light";
  const { key: shownKey } = useLocation();
  useEffect(() => {
    // Every effect of the render that showed this location has run (a child's runs before its parent's), so the
    // page's own listeners are in place: the browser tests wait for these marks rather than guess. The key is the
    // router's (history.state.key), so a test can tell a page reached by a client-side navigation from the one before.
    document.documentElement.dataset.hydrated = "true";
    document.documentElement.dataset.shown = shownKey;
    // When, to the millisecond of the page's clock: what a script asked for after it (in the same task, React's
    // next render of the page) was not needed to become interactive (test/e2e/slow-link).
    document.documentElement.dataset.hydratedAt ??= String(performance.now());
  }, [shownKey]);
  return (
    <html lang="ru" className={theme === "dark" ? "dark" : ""} data-theme={theme}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <HeadPreloads />
        <Meta />
        <Stylesheet href={stylesheet} inline={root?.inlineCss ?? false} />
        <Links />
      </head>
      <body className="min-h-screen bg-slate-100 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
        <PrepareFormats nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  const root = useRouteLoaderData<typeof loader>("root");
  return (
    <>
      <Toasts />
      <InspectionGuard />
      <Outlet />
      {/* Fixed at the top, but last in the document: once the message shows, the page above it has been parsed
          (a script or a person reading the banner after a plain form post sees the page it speaks of). */}
      {root?.flash ? (
        <div className="fixed inset-x-0 top-2 z-50 mx-auto w-fit max-w-[90vw]">
          <ServerMessage key={root.flash.message} kind={root.flash.type} message={root.flash.message} />
        </div>
      ) : null}
    </>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  let title = "Что-то пошло не так";
  let text = "Произошла ошибка. Обновите страницу или попробуйте позже.";
  if (isRouteErrorResponse(error) && error.status === 404) {
    title = "Страница не найдена";
    text = "Извините, запрашиваемая страница не существует";
  } else if (isRouteErrorResponse(error) && error.status === 503) {
    // The database is unreachable (app/errors.server.ts); the app reconnects by itself.
    title = "База данных временно недоступна";
    text = "Повторите через несколько секунд: обновите страницу.";
  } else if (isRouteErrorResponse(error) && error.status === 403) {
    title = "Доступ запрещён";
    text = "Эта страница доступна только администратору.";
  }
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 p-8 text-center">
      <h1 className="text-3xl font-semibold">{title}</h1>
      <p className="text-slate-600 dark:text-slate-400">{text}</p>
      <a href="/" className="btn-primary">
        На главную
      </a>
    </main>
  );
}
