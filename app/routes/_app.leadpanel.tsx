import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useFetcher, useLoaderData, useNavigation, useRevalidator, type ShouldRevalidateFunction } from "@remix-run/react";
import { lazy, Suspense, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type MouseEvent as ReactMouseEvent } from "react";
import { clientCardText } from "../../common/client-card";
import { BreakNotice } from "../components/breaks/BreakNotice";
import { BREAK_FETCHER } from "../components/breaks/BreakToggle";
import { useAutodial } from "../components/leads/Autodial";
import { isTypingTarget, useLeadPanelKeys } from "../components/leads/keys";
import { announce, NO_LEADS, type TurnView } from "../components/leadpanel/answer";
import { LeadBody, LeadHistory } from "../components/leadpanel/LeadBody";
import { PanelHeader } from "../components/leadpanel/PanelHeader";
import { StatusButtons } from "../components/leadpanel/StatusButtons";
import { useFocusAfterPress, usePanelPress } from "../components/leadpanel/usePanelPress";
import { useHistoryFollowsCalls } from "../components/leadpanel/useHistoryFollowsCalls";
import { useSoftphone } from "../components/softphone/SoftphoneProvider";
import { useHydrated } from "../components/ui/hydrated";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { useBackgroundRefresh } from "../lib/background-refresh";
import { holdHydration } from "../lib/before-hydration";
import { lazyComponent, lazyModule, loadOnServer, useLoadAfterHydration } from "../lib/lazy-module";
import { actorOf, callbackTimesNow, loadLeadPanel, pressAction, requireUser } from "../server-imports/leadpanel.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Клиенты" }];

/** «Клавиши» («?» or its button): fetched once the panel is interactive, drawn while open (decision 090). */
const keysDialog = lazyModule(() => import("../components/leads/KeysDialog"));
const KeysDialog = lazy(() => keysDialog.load().then((module) => ({ default: module.KeysDialog })));

/**
 * The press's dialogs, the autodial strip and the questions without JavaScript: fetched once the panel is
 * interactive (decision 091); a dialog asked for before they are in opens as soon as they are. The server has
 * them from the start and draws a question into the page as before (lazyComponent says what hydrating one does).
 */
const afterHydration = lazyModule(() => import("../components/leadpanel/after-hydration"));
loadOnServer(afterHydration);
// A page the server drew with a question (a press posted before the page's script ran) hydrates once they are in.
if (typeof document !== "undefined" && document.querySelector("[data-no-script-question]")) holdHydration(afterHydration.loadForHydration());
const PressDialogs = lazyComponent(afterHydration, (module) => module.PressDialogs);
const AutodialBar = lazyComponent(afterHydration, (module) => module.AutodialBar);
const NoScriptQuestion = lazyComponent(afterHydration, (module) => module.NoScriptQuestion);

/** The parent routes' headers, and the action's Cache-Control when it set one (a press's answer: no-transform). */
export const headers: HeadersFunction = ({ actionHeaders, parentHeaders }) => {
  const merged = new Headers(parentHeaders);
  const cacheControl = actionHeaders.get("Cache-Control");
  if (cacheControl) merged.set("Cache-Control", cacheControl);
  return merged;
};

/** /leadpanel: the chosen topic's lead (held, or claimed now), the status buttons, the client card, the links. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  // Taken before the lead is read: a press answered later than this carries a newer lead (see newestTurn).
  const readAt = Date.now();
  const panel = await loadLeadPanel(context.deps.db, actorOf(user), context.deps.config.holdMinutes, context.deps.config.phoneRegion);
  return {
    ...panel,
    userId: user.id,
    isAdmin: user.isAdmin,
    acceptsInbound: user.sipLogin ? user.acceptsInbound : null,
    callbackTimes: callbackTimesNow(),
    readAt,
  };
}

/**
 * A press sent by the page's script goes to /leadpanel/press, outside the router: nothing is revalidated after it
 * by itself. When its answer says the layout's figures may have changed (the balance, the callbacks count), the
 * page refreshes root and layout, not this loader (the answer had the lead): see refreshLayout.
 */
let layoutOnly = false;
export const shouldRevalidate: ShouldRevalidateFunction = ({ defaultShouldRevalidate }) => (layoutOnly ? false : defaultShouldRevalidate);

/**
 * Revalidates root and layout only. The router asks shouldRevalidate within revalidate() itself (a route already
 * known, no navigation under way), so the flag is up for exactly that call.
 */
function refreshLayout(revalidator: ReturnType<typeof useRevalidator>) {
  layoutOnly = true;
  try {
    revalidator.revalidate();
  } finally {
    layoutOnly = false;
  }
}

const WAITING_NOW = "У остальных клиентов тематики сейчас нерабочее время по их часовому поясу";
/** Said when core cannot tell when their hours begin (none within the weeks ahead); else core's «звонки продолжатся …». */
const WAITING_FOR_HOURS = `${WAITING_NOW}: они появятся, когда оно начнётся`;

/** Enter in a one-line field of the card does not press the first status (keys never act in a field). */
function onFieldKeyDown(event: ReactKeyboardEvent<HTMLFormElement>) {
  const target = event.target as HTMLElement;
  if (event.key === "Enter" && target.tagName === "INPUT") event.preventDefault();
  // Issue 41: Esc leaves a card field for the status row, where the digits press statuses again.
  if (event.key === "Escape" && isTypingTarget(target) && event.currentTarget.contains(target)) {
    event.preventDefault();
    event.currentTarget.querySelector<HTMLButtonElement>("[data-testid=status-buttons] button")?.focus();
  }
}

/**
 * The form's post without JavaScript: a status press (the page shows the question it may ask) or «Сменить
 * тематику». With JavaScript the page's script posts the press to PRESS_PATH. Both are app/press.server.ts.
 */
export const action = pressAction;

export default function LeadPanelPage() {
  const loaded = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerKey = useAnswerKey(answer);
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const formRef = useRef<HTMLFormElement>(null);
  const [keysOpen, setKeysOpen] = useState(false);
  useLoadAfterHydration(keysDialog, afterHydration);
  const hydrated = useHydrated();

  // With JavaScript a press is fetched by the page itself and its answer carries the next lead (decision 065).
  const lastTurn = useRef<{ view: TurnView; count: number } | null>(null);
  const press = usePanelPress({
    formRef,
    statuses: loaded.statuses,
    navigating: navigation.state !== "idle",
    refresh: { all: () => revalidator.revalidate(), layout: () => refreshLayout(revalidator) },
  });

  // The lead on screen: the newest of the loader's and the last press's (a refresh of the page's data that was
  // already on its way when the press was answered must not bring the old lead back).
  const pressed = press.answer?.next;
  if (pressed && pressed !== lastTurn.current?.view && (!lastTurn.current || pressed.readAt >= lastTurn.current.view.readAt)) {
    lastTurn.current = { view: pressed, count: (lastTurn.current?.count ?? 0) + 1 };
  }
  const turn = lastTurn.current && lastTurn.current.view.readAt > loaded.readAt ? lastTurn.current : null;
  const panel = turn ? { ...loaded, ...turn.view } : loaded;
  // SPEC §4 lead flow: with no lead on screen, look again 500 ms after start and then every 30 s.
  useBackgroundRefresh(panel.lead ? null : 30_000, 500);
  useFocusAfterPress(press, formRef, panel.lead?.id);

  // Issue 29: autodial (decision 058). The lead counts down and is dialled as Позвонить would, unless the rule says not now.
  const softphone = useSoftphone();
  const breakPost = useFetcher({ key: BREAK_FETCHER });
  const client = panel.lead
    ? [panel.lead.name, panel.card.find((row) => row.key === "phone")?.value || panel.lead.phone].filter(Boolean).join(", ")
    : "";
  const autodial = useAutodial({
    // Without a softphone (no SIP login, JavaScript off) there is nothing to dial with: no autodial; nor for a
    // client on «Не звонить» (he called in: his card is shown, the proxy refuses a call to him).
    seconds: softphone.configured && !panel.doNotCall ? (panel.autodial?.seconds ?? null) : null,
    leadBlock: panel.autodial?.block ?? null,
    onBreak: panel.onBreak || breakPost.formData?.get("intent") === "start",
    pressing: press.busy || press.pendingReport !== null || press.pendingCallback !== null,
    showing: panel.lead ? `${panel.lead.id}-${lastTurn.current?.count ?? 0}` : null,
    phone: softphone.state,
    client,
    dial() {
      if (panel.lead) softphone.call(panel.lead.phone, panel.lead.id);
    },
  });

  // Issue 41 §14: the client's history shows a call as the call log has it (its start, its end), not 15 s later.
  const phoneIdle = softphone.state === null || softphone.state.call === "idle" || softphone.state.call === "ended";
  const history = useHistoryFollowsCalls(panel.lead?.id ?? null, panel.history, panel.readAt, phoneIdle);

  // Issue 18: the panel's keys. A digit clicks its status button (the same path as a mouse: the same checks,
  // dialogs and request; a disabled button, while a press is in flight, does nothing); C calls or hangs up.
  useLeadPanelKeys({
    status(n) {
      // The digit the button shows (issue 31: the admin orders the keys on /edit-statuses).
      formRef.current?.querySelector<HTMLButtonElement>(`[data-testid=status-buttons] button[aria-keyshortcuts="${n}"]`)?.click();
    },
    call() {
      const form = formRef.current;
      (form?.querySelector<HTMLElement>("[data-testid=hang-up-button]") ?? form?.querySelector<HTMLElement>("[data-testid=call-button]"))?.click();
    },
    help() {
      setKeysOpen(true);
    },
    skip: autodial.skip,
    pause: autodial.togglePause,
  });

  const header = (
    <PanelHeader
      topic={panel.filter?.name ?? null}
      onKeys={hydrated ? () => setKeysOpen(true) : null}
      acceptsInbound={panel.acceptsInbound}
      canChange={panel.openTopics !== 1}
      isAdmin={panel.isAdmin}
    />
  );
  if (!panel.filter) {
    return (
      <section>
        {header}
        <div className="card space-y-3 text-sm">
          <p>Тематика не выбрана.</p>
          <Link to="/getFilters" className="btn-primary">
            Выбрать тематику
          </Link>
        </div>
      </section>
    );
  }

  return (
    <section>
      {header}
      {answer?.error ? <ServerMessage key={answerKey} kind="error" message={answer.error.message} /> : null}
      {/* Issue 18: a screen reader hears the next lead after a press (the page itself does not move). */}
      <p className="sr-only" aria-live="polite" data-testid="lead-announcement">
        {turn ? announce(turn.view) : ""}
      </p>
      {/* The page hydrates with its chunk in (holdHydration above): drawn at once, as the server drew it. */}
      {answer?.confirm ? (
        <NoScriptQuestion kind="confirm" press={answer.confirm} times={panel.callbackTimes} cardText={clientCardText(answer.confirm.card)} />
      ) : null}
      {answer?.callback ? (
        <NoScriptQuestion kind="callback" press={answer.callback} times={panel.callbackTimes} cardText={clientCardText(answer.callback.card)} />
      ) : null}
      {panel.onBreak ? <BreakNotice holdsLead={panel.lead !== null} /> : null}
      {panel.lead ? (
        <Form method="post" ref={formRef} onSubmit={press.onSubmit} onKeyDown={onFieldKeyDown} className="space-y-4" data-testid="lead-form">
          <input type="hidden" name="intent" value="status" />
          <input type="hidden" name="contactId" value={panel.lead.id} />
          {/* First, as SPEC's /leadpanel lists it: most presses (Недозвон, Занято) need no card, on a phone too. */}
          <StatusButtons statuses={panel.statuses} busy={press.busy} slow={press.slow} />
          {hydrated ? (
            <Suspense fallback={null}>
              <AutodialBar autodial={autodial} client={client} />
            </Suspense>
          ) : null}
          <LeadBody
            lead={panel.lead}
            callback={panel.callback}
            doNotCall={panel.doNotCall}
            card={panel.card}
            cardFields={panel.cardFields}
            template={panel.template}
            cardKey={`${panel.lead.id}-${lastTurn.current?.count ?? 0}`}
            // Without JavaScript the server's refusal marks the card the same way.
            cardProblem={press.cardProblem ?? (answer?.error?.code === "client_card_empty" ? answer.error.message : null)}
            onCardInput={press.clearCardProblem}
          />
          {/*
            Issue 41: a manager who typed in the card reaches the statuses with one Tab (they were eleven stops away):
            the card's last stop is a link to them, shown when focused. Esc or the digit keys serve as well.
          */}
          <a href="#status-buttons" className="skip-to-statuses" onClick={focusFirstStatus} data-testid="to-statuses">
            К статусам (или цифры 1–9)
          </a>
          <LeadHistory history={history} />
        </Form>
      ) : panel.onBreak ? null : (
        <div className="card text-center text-base" data-testid="no-leads">
          <p>{NO_LEADS}</p>
          {panel.waitingForHours ? (
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400" data-testid="no-leads-hours">
              {panel.callsResume ? `${WAITING_NOW}: ${panel.callsResume}` : WAITING_FOR_HOURS}
            </p>
          ) : null}
        </div>
      )}
      {panel.links.length > 0 ? (
        <nav aria-label="Ссылки" className="mt-4 flex flex-wrap gap-2" data-testid="lead-links">
          {panel.links.map((link) => (
            <a key={link.id} href={link.link} target="_blank" rel="noopener noreferrer" className="btn-secondary">
              {link.name}
            </a>
          ))}
        </nav>
      ) : null}

      {hydrated ? (
        <Suspense fallback={null}>
          <PressDialogs
            times={panel.callbackTimes}
            pendingCallback={press.pendingCallback}
            pendingReport={press.pendingReport}
            closeCallback={press.closeCallback}
            closeReport={press.closeReport}
            scheduleCallback={press.scheduleCallback}
            confirmReport={press.confirmReport}
          />
        </Suspense>
      ) : null}
      {keysOpen ? (
        <Suspense fallback={null}>
          <KeysDialog open onOpenChange={setKeysOpen} autodial={autodial.state.kind !== "off"} />
        </Suspense>
      ) : null}
    </section>
  );
}

/** «К статусам»: the focus on the first status button (without JavaScript the link scrolls to the row). */
function focusFirstStatus(event: ReactMouseEvent<HTMLAnchorElement>) {
  const first = document.querySelector<HTMLButtonElement>("#status-buttons button");
  if (!first) return;
  event.preventDefault();
  first.focus();
  first.scrollIntoView({ block: "nearest" });
}
