import type { LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData, useLocation, useNavigationType, useRouteLoaderData, useSubmit } from "@remix-run/react";
import { useEffect } from "react";
import { BreakForm } from "../components/breaks/BreakToggle";
import { mustChooseTopic } from "../../common/admin-screens";
import { useTopicRedirect } from "../lib/topic-redirect";
import { Footer } from "../components/layout/Footer";
import { Header } from "../components/layout/Header";
import { MenuBackdrop, MenuCloseButton, usePhoneMenuClosing } from "../components/layout/PhoneMenu";
import { BalanceSlot } from "../components/money/BalanceSlot";
import { Sidebar } from "../components/layout/Sidebar";
import { useScriptViewer } from "../components/scripts/useScriptViewer";
import { SoftphoneDock } from "../components/softphone/SoftphoneDock";
import { SoftphoneProvider } from "../components/softphone/SoftphoneProvider";
import { TestCallButton } from "../components/softphone/TestCallButton";
import { LogoutForm } from "../components/layout/LogoutForm";
import { notify } from "../components/ui/Toasts";
import { useHydrated } from "../components/ui/hydrated";
import { useCallbacksDue, useRealtimeSession } from "../lib/realtime";
import { WhisperReceiver } from "../components/softphone/WhisperReceiver";
import { hangUpAllCallsThenLogout } from "../lib/softphone";
import { useBackgroundRefresh } from "../lib/background-refresh";
import type { loader as rootLoader } from "../root";
import {
  actorOf,
  breakState,
  callbackCounts,
  clearSessionCookieHeader,
  listScriptsForUser,
  presentSessionUser,
  readSessionToken,
  redirect,
  requireUser,
} from "../server-imports/app-layout.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

/** The root layout of SPEC §2: every page behind it needs a logged-in user. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  if (!user.isOnline) {
    // The session was ended elsewhere (logout on another device, or forced): end this one too.
    const token = await readSessionToken(request, context);
    if (token) await context.deps.sessions.invalidate(token);
    throw redirect("/auth", { headers: { "Set-Cookie": await clearSessionCookieHeader(context) } });
  }
  // SPEC §2: a manager with no topic goes to /getFilters (admins never are forced there).
  if (mustChooseTopic(user, new URL(request.url).pathname)) throw redirect("/getFilters");
  const [scripts, callbacks, pause] = await Promise.all([
    listScriptsForUser(context.deps.db, actorOf(user)),
    callbackCounts(context.deps.db, user.id),
    breakState(context.deps.db, actorOf(user)),
  ]);
  return { user: presentSessionUser(user), scripts, callbacksDue: callbacks.due, pause };
}

/** SPEC §9: the current user refreshes every 15 s. */
const USER_REFRESH_MS = 15_000;

export default function AppLayout() {
  const layout = useLoaderData<typeof loader>();
  const { user, scripts, callbacksDue: callbacksDueLoaded, pause } = layout;
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const submit = useSubmit();
  // The sidebar's Скрипты entries open the script viewer (a modal with JS, /scripts/view/:id without).
  const scriptViewer = useScriptViewer();
  // SPEC §9: the /getFilters redirect check, every 500 ms while the manager has no topic.
  useTopicRedirect(user);

  // SPEC §4: the realtime channel; a forced logout hangs up every call, then logs out after 200 ms to /auth.
  useRealtimeSession(user.id, () => void hangUpAllCallsThenLogout(() => submit(null, { method: "post", action: "/logout" })));

  // Issue 18: a callback falling due is told at once on any page (a toast) and counted in the menu.
  const callbacksDue = useCallbacksDue(
    callbacksDueLoaded,
    (due) => {
      for (const callback of due) notify("info", `Пора перезвонить: ${callback.name || callback.phone} (${callback.phone})`);
    },
    layout,
  );

  // A client-side navigation can unmount the focused link or button (a form post, a redirect): the focus then
  // falls to <body> and the next Tab would start from where that element was. Put it on the new page's content,
  // as a page load would (not on back/forward, where the browser restores its own state).
  const location = useLocation();
  const navigationType = useNavigationType();
  useEffect(() => {
    if (navigationType === "POP") return;
    if (document.activeElement === null || document.activeElement === document.body) {
      document.getElementById("content")?.focus({ preventScroll: true });
    }
  }, [location.key, navigationType]);

  usePhoneMenuClosing(location.key);
  const hydrated = useHydrated();

  useBackgroundRefresh(USER_REFRESH_MS);

  const helpUrl = root?.publicSettings.helpUrl ?? "#";
  const sipSettings = { sipWsUrl: root?.publicSettings.sipWsUrl ?? "", sipDomain: root?.publicSettings.sipDomain ?? "" };
  return (
    // The softphone runs for the whole layout (calls survive navigation), only in the browser (issue 6).
    <SoftphoneProvider settings={sipSettings} user={user}>
      <div className="flex min-h-screen">
        {/* Keyboard users jump over the menu to the page (the first Tab stop of every screen). */}
        <a href="#content" className="btn-primary sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50">
          Перейти к содержимому
        </a>
        {/*
          The menu toggle works without JavaScript: a checkbox the header's label flips (Space toggles it too). Issue
          41: it is a Tab stop only where it is the phone menu's, without JavaScript; at desk width it is not shown
          (the label still flips it), and with JavaScript the header's ☰ itself takes the focus.
        */}
        <input id="menu-toggle" type="checkbox" className="peer sr-only desk:hidden" aria-label="Меню" tabIndex={hydrated ? -1 : undefined} />
        <MenuBackdrop />
        <aside
          className="fixed inset-y-0 left-0 z-30 hidden w-64 shrink-0 flex-col border-r border-slate-200 bg-white peer-checked:flex dark:border-slate-700 dark:bg-slate-900 desk:sticky desk:top-0 desk:flex desk:h-screen desk:peer-checked:hidden"
          data-testid="sidebar"
        >
          <div className="flex h-14 shrink-0 items-center px-4 text-lg font-semibold">
            Лиды
            <MenuCloseButton />
          </div>
          <Sidebar isAdmin={user.isAdmin} scripts={scripts} renderScript={scriptViewer.renderScript} callbacksDue={callbacksDue} />
          {/* Issue 41: «Выйти» in the phone menu for everyone (at desk width it is in the header). */}
          <div className="shrink-0 border-t border-slate-200 p-4 dark:border-slate-700 desk:hidden">
            <LogoutForm buttonClassName="btn-secondary w-full" testId="menu-logout" />
          </div>
        </aside>
        <div className="flex min-w-0 flex-1 flex-col">
          <Header
            user={user}
            theme={root?.theme ?? "light"}
            helpUrl={helpUrl}
            balanceSlot={<BalanceSlot initial={user.balance} />}
            breakSlot={
              // Issue 18: those who work leads take breaks from the header, on every page.
              pause.mayBreak || pause.onBreak ? (
                <BreakForm onBreak={pause.onBreak} elapsedSeconds={pause.elapsedSeconds} startedAt={pause.startedAt} />
              ) : null
            }
          />
          {/* An admin's whisper into this user's call plays here, whatever page is open; its notice sits under the header. */}
          <WhisperReceiver />
          {/* One content width for every screen (issue 17): wide tables fit at 1440 px, forms do not stretch past it. */}
          <main id="content" tabIndex={-1} className="mx-auto w-full max-w-screen-xl flex-1 p-4 outline-none desk:p-6">
            <Outlet />
            {scriptViewer.dialog}
          </main>
          <Footer helpUrl={helpUrl}>
            <TestCallButton />
          </Footer>
        </div>
        <SoftphoneDock />
      </div>
    </SoftphoneProvider>
  );
}
