import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useFetcher,
  useLoaderData,
  useNavigation,
  useRevalidator,
  type ShouldRevalidateFunction,
} from "@remix-run/react";
import { flushSync } from "react-dom";
import { memo, useEffect, useRef, useState, type FormEvent, type KeyboardEvent as ReactKeyboardEvent, type RefObject } from "react";
import { actorOf, requireUser } from "../auth.server";
import { clientHistory, handedLeadDetails, type HistoryEntry } from "../calls.server";
import { BreakNotice } from "../components/breaks/BreakNotice";
import { ClientHistory } from "../components/calls/ClientHistory";
import { CallButton } from "../components/leads/CallButton";
import { statusEdgeClass } from "../lib/color";
import {
  clientCardText,
  REPORT_CONFIRM,
  reportCardProblem,
  textColorFor,
  type CardFieldValue,
} from "../components/leads/clientCard";
import { KeyCap, KeysDialog, useLeadPanelKeys } from "../components/leads/keys";
import { AutodialBar, useAutodial } from "../components/leads/Autodial";
import { useSoftphone } from "../components/softphone/SoftphoneProvider";
import { BREAK_FETCHER } from "../components/breaks/BreakToggle";
import { Modal, ModalClose } from "../components/ui/Modal";
import { LeadCard } from "../components/leads/LeadCard";
import { ServerMessage, notify, useAnswerKey, type ToastKind } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { readFormBody } from "../forms.server";
import {
  CALLBACK_PRESETS,
  callbackTimeFromForm,
  dateToKyivLocal,
  findStatus,
  formatKyiv,
  forwardApplication,
  leadCardRows,
  leaveFilter,
  loadLeadPanel,
  recordStatus,
  autodialFor,
  type LeadPanel,
} from "../leads.server";
import { redirectWithToast, type Flash } from "../toast.server";

export const meta: MetaFunction = () => [{ title: "Клиенты" }];

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
  const history = panel.lead ? await clientHistory(context.deps.db, actorOf(user), panel.lead.id) : [];
  const autodial = await autodialOf(context.deps.db, user.id, panel.lead);
  return { ...panel, history, autodial, userId: user.id, callbackTimes: callbackTimesNow(), readAt };
}

/** The callback time's quick choices and the free choice's bounds (Kyiv wall clock), computed here (issue 18). */
function callbackTimesNow() {
  const now = new Date();
  return {
    presets: CALLBACK_PRESETS.map((p) => ({ value: p.value, label: p.label })),
    min: dateToKyivLocal(now),
    initial: dateToKyivLocal(new Date(now.getTime() + 3600_000)),
  };
}

/**
 * What a press answers to the page that sent it (issue 18: the next lead in the same request, SPEC §4): the lead,
 * its card and history, and when it was read. The topic, statuses, template and links do not change with a press.
 */
async function turnView(context: ActionFunctionArgs["context"], actor: ReturnType<typeof actorOf>, lead: LeadPanel["lead"]) {
  const { db, config } = context.deps;
  // Side by side: on a server busy with other managers' turns, each query in a row waits its turn again.
  const [details, autodial] = await Promise.all([lead ? handedLeadDetails(db, actor, lead.id) : null, autodialOf(db, actor.id, lead)]);
  const card = lead && details ? leadCardRows(lead, details.extraLabels, config.phoneRegion) : [];
  return { lead, card, history: details?.history ?? [], autodial, callbackTimes: callbackTimesNow(), readAt: Date.now() };
}

/** The topic's autodial for the lead on screen (decision 058); null when off or there is no lead. */
const autodialOf = (db: ActionFunctionArgs["context"]["deps"]["db"], userId: number, lead: LeadPanel["lead"]) =>
  lead ? autodialFor(db, userId, lead.id) : Promise.resolve(null);

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

/** The client card as posted: cardLabel / cardValue pairs in template order. */
function readCard(form: FormData): CardFieldValue[] {
  const labels = form.getAll("cardLabel").map(String);
  const values = form.getAll("cardValue").map(String);
  return labels.map((label, i) => ({ label, value: values[i] ?? "" }));
}

interface ConfirmState {
  statusId: string;
  statusText: string;
  contactId: string;
  passport: string;
  card: CardFieldValue[];
  /** The press was already confirmed (a report status that also asks for a callback time). */
  confirmed?: boolean;
}

/**
 * intent status: a status press (a report status first needs a filled card and a confirmation; without
 * JavaScript the confirmation is a section of the page). Then the next lead is on the page.
 * intent change-topic: back to /getFilters.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const { db, config } = context.deps;
  // The session, the form and the status it names are read side by side (a press waits for each query in a row
  // behind the other managers' turns); nothing read is used before the session is known.
  const formRead = readFormBody(request);
  const [user, form, status] = await Promise.all([
    requireUser(request, context),
    formRead,
    formRead.then((form) => findStatus(db, form.get("statusId"))),
  ]);
  const actor = actorOf(user);
  const intent = String(form.get("intent") ?? "status");

  if (intent === "change-topic") {
    await leaveFilter(db, actor);
    return redirect("/getFilters");
  }

  // The page's script takes the next lead in the answer; a plain form post (no JavaScript) is redirected.
  const answerPanel = form.get("answer") === "panel";
  const refused = (error: { code: string; message: string }, httpStatus: number, rest: Partial<Answer> = {}) =>
    data<Answer>({ error, confirm: null, callback: null, next: null, message: null, refreshLayout: false, ...rest }, { status: httpStatus });
  const asks = (rest: Partial<Answer>) =>
    data<Answer>({ error: null, confirm: null, callback: null, next: null, message: null, refreshLayout: false, ...rest });

  if (!status) return refused({ code: "status_not_found", message: "Такого статуса нет" }, 400);
  const card = readCard(form);
  const contactId = String(form.get("contactId") ?? "");
  const passport = String(form.get("passport") ?? "");

  const pressed: ConfirmState = { statusId: String(status.id), statusText: status.text, contactId, passport, card };
  if (status.isReportStatus) {
    const problem = reportCardProblem(card);
    if (problem) return refused({ code: "client_card_empty", message: problem }, 400);
    if (form.get("confirmed") !== "1") return asks({ confirm: pressed });
  }

  // Issue 18: a status that asks for a callback time; without JavaScript the question is a section of the page.
  let callbackAt: Date | null = null;
  if (status.asksCallback) {
    const preset = String(form.get("callbackPreset") ?? "");
    const local = String(form.get("callbackLocal") ?? "");
    const callback = { ...pressed, confirmed: form.get("confirmed") === "1" };
    if (!preset && !local) return asks({ callback });
    try {
      callbackAt = callbackTimeFromForm(preset, local);
    } catch (error) {
      const answer = actionError(error);
      return refused(answer.data.error, answer.init?.status ?? 400, { callback });
    }
  }

  try {
    const result = await recordStatus(db, actor, config.holdMinutes, {
      statusText: status.text,
      contactId,
      userId: user.id,
      passport,
      filterId: user.gettingFilter,
      clientInfo: clientCardText(card),
      callbackAt: callbackAt?.toISOString() ?? null,
    }, { phoneRegion: config.phoneRegion });
    context.deps.metrics.leadTurn(result.lead !== null);
    let message: Flash | null = null;
    if (result.applicationId) {
      try {
        const sent = await forwardApplication(db, config.applicationForwardUrl, result.applicationId);
        message = { type: "success", message: sent.message };
      } catch {
        message = { type: "error", message: "Ошибка при отправке" };
      }
    } else if (result.callback) {
      message = { type: "success", message: `Перезвон запланирован на ${formatKyiv(result.callback.dueAt)}` };
    }
    if (answerPanel) {
      // A few kilobytes the panel waits for: sent as they are, not through gzip (on an event loop busy with other
      // managers' turns, the compressor's last flush waited for its turn, ~10 ms a press on PGlite).
      const next = await turnView(context, actor, result.lead);
      // The layout's figures this press may have changed: a report credits the balance; a client worked before
      // may be a due callback of his that the press handed out (the menu's count).
      const refreshLayout = result.applicationId !== null || next.history.length > 0;
      return data<Answer>(
        { error: null, confirm: null, callback: null, next, message, refreshLayout },
        { headers: { "Cache-Control": "no-store, no-transform" } },
      );
    }
    return message ? redirectWithToast("/leadpanel", message) : redirect("/leadpanel");
  } catch (error) {
    const answer = actionError(error);
    return refused(answer.data.error, answer.init?.status ?? 400);
  }
}

type TurnView = Awaited<ReturnType<typeof turnView>>;

/** Every answer of the action but a redirect: a refusal, a question (report, callback time) or the next lead. */
interface Answer {
  error: { code: string; message: string } | null;
  confirm: ConfirmState | null;
  callback: ConfirmState | null;
  next: TurnView | null;
  message: Flash | null;
  /** The page refreshes root and layout after painting the next lead (see the action). */
  refreshLayout: boolean;
}

/** Where the page's script sends a press (app/routes/leadpanel.press.ts). */
const PRESS_URL = "/leadpanel/press";

/**
 * A status press with JavaScript (decision 065). The request leaves in the press's own task (through the router
 * it waited for a render of the pending state and a read of the form back from a Request), and the answer is
 * rendered as soon as it is in. One press at a time: another while one is in flight is dropped. A redirect (the
 * session ended) is followed as a page load; any other failure shows the error page, as it did through the router.
 */
function usePress() {
  const [state, setState] = useState<{ pending: boolean; answer: Answer | null; failure: unknown }>({
    pending: false,
    answer: null,
    failure: null,
  });
  const inFlight = useRef(false);
  if (state.failure) throw state.failure;

  function send(form: FormData) {
    if (inFlight.current) return;
    inFlight.current = true;
    const body = new URLSearchParams();
    for (const [name, value] of form) body.append(name, String(value));
    const request = fetch(PRESS_URL, { method: "POST", body, headers: { Accept: "application/json" } });
    setState((s) => ({ ...s, pending: true }));
    request
      .then(async (response) => {
        if (response.redirected) {
          window.location.assign(response.url);
          return;
        }
        if (!response.headers.get("Content-Type")?.includes("application/json")) {
          // As the router would have thrown it: the error page tells a 503 (database away) from anything else.
          throw { status: response.status, statusText: response.statusText, internal: false, data: await response.text() };
        }
        const answer = (await response.json()) as Answer;
        // Rendered in this task, not after whatever else is queued (the next lead is what the manager waits for).
        flushSync(() => setState({ pending: false, answer, failure: null }));
      })
      .catch((failure: unknown) => setState((s) => ({ ...s, pending: false, failure })))
      .finally(() => {
        inFlight.current = false;
      });
  }

  return { pending: state.pending, answer: state.answer, send, inFlight: () => inFlight.current };
}

/** SPEC §4 lead flow: with no lead on screen, look again 500 ms after start and then every 30 s. */
function useLeadPolling(hasLead: boolean) {
  const revalidator = useRevalidator();
  const state = useRef(revalidator);
  state.current = revalidator;
  useEffect(() => {
    if (hasLead) return;
    const again = () => {
      if (document.visibilityState === "visible" && state.current.state === "idle") state.current.revalidate();
    };
    const first = setTimeout(again, 500);
    const timer = setInterval(again, 30_000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [hasLead]);
}

/** A lead as the screen reader announces it after a press (issue 18), or the SPEC's empty state. */
function announce(view: { lead: LeadPanel["lead"]; card: Array<{ key: string; value: string }> }): string {
  if (!view.lead) return NO_LEADS;
  const phone = view.card.find((row) => row.key === "phone")?.value || view.lead.phone;
  return `Новый лид: ${[view.lead.name, phone].filter(Boolean).join(", ")}`;
}

const NO_LEADS = "Для вас нет доступных лидов";
const WAITING_FOR_HOURS = "У остальных клиентов тематики сейчас нерабочее время по их часовому поясу: они появятся, когда оно начнётся";

export default function LeadPanelPage() {
  const loaded = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerKey = useAnswerKey(answer);
  const navigation = useNavigation();
  // With JavaScript a press is fetched by the page itself and its answer carries the next lead (decision 065).
  const press = usePress();
  const revalidator = useRevalidator();
  const formRef = useRef<HTMLFormElement>(null);
  const [pendingReport, setPendingReport] = useState<{ statusId: number; text: string } | null>(null);
  const [pendingCallback, setPendingCallback] = useState<{ statusId: number; text: string; report: boolean } | null>(null);
  const [keysOpen, setKeysOpen] = useState(false);
  const hydrated = useHydrated();

  // The lead on screen: the newest of the loader's and the last press's (a refresh of the page's data that was
  // already on its way when the press was answered must not bring the old lead back).
  const lastTurn = useRef<{ view: TurnView; count: number } | null>(null);
  const pressed = press.answer?.next;
  if (pressed && pressed !== lastTurn.current?.view && (!lastTurn.current || pressed.readAt >= lastTurn.current.view.readAt)) {
    lastTurn.current = { view: pressed, count: (lastTurn.current?.count ?? 0) + 1 };
  }
  const turn = lastTurn.current && lastTurn.current.view.readAt > loaded.readAt ? lastTurn.current : null;
  const panel = turn ? { ...loaded, ...turn.view } : loaded;

  const busy = press.pending || navigation.state !== "idle";
  useLeadPolling(Boolean(panel.lead));

  // Keyboard work: when a press left the focus nowhere (the form went and came back with the empty state between,
  // or a dialog closed), put it back on the status row (on the same status when the topic still has it).
  const pressedStatus = useRef<string | null>(null);
  const leadId = panel.lead?.id;
  useEffect(() => {
    if (busy || pressedStatus.current === null) return;
    const pressedId = pressedStatus.current;
    pressedStatus.current = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    const row = formRef.current?.querySelector<HTMLElement>("[data-testid=status-buttons]");
    (row?.querySelector<HTMLButtonElement>(`button[value="${pressedId}"]`) ?? row?.querySelector("button"))?.focus();
  }, [leadId, busy]);

  // What the server said about a press: a refusal or a message as a toast; a question it asked (the status became
  // a report or callback one since the page was loaded) as its dialog.
  // Then, once the answer is painted, what the router did after a press through it: a refused press or a question
  // reads every loader again (the lead or the statuses changed under the page); a turn that may have changed the
  // layout's figures refreshes root and layout.
  useEffect(() => {
    const said = press.answer;
    if (!said) return;
    if (said.error) notify("error", said.error.message);
    if (said.message) notify(said.message.type as ToastKind, said.message.message);
    if (said.confirm) setPendingReport({ statusId: Number(said.confirm.statusId), text: said.confirm.statusText });
    else if (said.callback) setPendingCallback({ statusId: Number(said.callback.statusId), text: said.callback.statusText, report: Boolean(said.callback.confirmed) });
    if (!said.next || said.refreshLayout) {
      const frame = requestAnimationFrame(() => (said.next ? refreshLayout(revalidator) : revalidator.revalidate()));
      return () => cancelAnimationFrame(frame);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer; the revalidator changes with its state
  }, [press.answer]);

  function cardFromForm(): CardFieldValue[] {
    const form = new FormData(formRef.current ?? undefined);
    return readCard(form);
  }

  /** Sends the press (the card as typed, the status, and what a dialog added). */
  function send(statusId: number | string, extra: Record<string, string> = {}) {
    if (!formRef.current || press.inFlight()) return;
    const form = new FormData(formRef.current);
    form.set("intent", "status");
    form.set("statusId", String(statusId));
    form.set("answer", "panel");
    for (const [name, value] of Object.entries(extra)) form.set(name, value);
    press.send(form);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    if (press.inFlight() || busy || !submitter || submitter.name !== "statusId") return;
    pressedStatus.current = submitter.value;
    const status = panel.statuses.find((s) => String(s.id) === submitter.value);
    const text = status ? status.buttonText || status.text : "";
    if (submitter.dataset.callback === "true") {
      // Issue 18: ask for the callback time first (a report status's card is checked here too).
      const report = submitter.dataset.report === "true";
      const problem = report ? reportCardProblem(cardFromForm()) : null;
      if (problem) {
        notify("error", problem);
        return;
      }
      setPendingCallback({ statusId: Number(submitter.value), text, report });
      return;
    }
    if (submitter.dataset.report === "true") {
      // SPEC §4: a report status needs a filled card and the confirmation dialog.
      const problem = reportCardProblem(cardFromForm());
      if (problem) {
        notify("error", problem);
        return;
      }
      setPendingReport({ statusId: Number(submitter.value), text });
      return;
    }
    send(submitter.value);
  }

  /** Enter in a one-line field of the card does not press the first status (keys never act in a field). */
  function onFieldKeyDown(event: ReactKeyboardEvent<HTMLFormElement>) {
    const target = event.target as HTMLElement;
    if (event.key === "Enter" && target.tagName === "INPUT") event.preventDefault();
  }

  function confirmReport() {
    if (!pendingReport) return;
    const statusId = pendingReport.statusId;
    setPendingReport(null);
    send(statusId, { confirmed: "1" });
  }

  function scheduleCallback(choice: { preset: string } | { local: string }) {
    if (!pendingCallback) return;
    const { statusId, report } = pendingCallback;
    setPendingCallback(null);
    send(statusId, {
      ...(report ? { confirmed: "1" } : {}),
      ...("preset" in choice ? { callbackPreset: choice.preset } : { callbackLocal: choice.local }),
    });
  }

  // Issue 29: autodial (decision 058). The lead counts down and is dialled as Позвонить would, unless the rule says not now.
  const softphone = useSoftphone();
  const breakPost = useFetcher({ key: BREAK_FETCHER });
  const client = panel.lead ? [panel.lead.name, panel.card.find((row) => row.key === "phone")?.value || panel.lead.phone].filter(Boolean).join(", ") : "";
  const autodial = useAutodial({
    // Without a softphone (no SIP login, JavaScript off) there is nothing to dial with: no autodial.
    seconds: softphone.configured ? (panel.autodial?.seconds ?? null) : null,
    leadBlock: panel.autodial?.block ?? null,
    onBreak: panel.onBreak || breakPost.formData?.get("intent") === "start",
    pressing: busy || pendingReport !== null || pendingCallback !== null,
    showing: panel.lead ? `${panel.lead.id}-${lastTurn.current?.count ?? 0}` : null,
    phone: softphone.state,
    client,
    dial() {
      if (panel.lead) softphone.call(panel.lead.phone, panel.lead.id);
    },
  });

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

  const confirmButton = useRef<HTMLButtonElement>(null);
  const firstPreset = useRef<HTMLButtonElement>(null);

  const header = (
    <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
      <h1 className="page-title mb-0">Клиенты</h1>
      {panel.filter ? (
        <div className="flex flex-wrap items-center gap-3 text-sm">
          {hydrated ? (
            <button type="button" className="btn-secondary px-2 py-1 text-xs" aria-keyshortcuts="Shift+?" onClick={() => setKeysOpen(true)}>
              Клавиши
            </button>
          ) : null}
          <Form method="post" className="flex items-center gap-3">
            <span className="text-slate-600 dark:text-slate-400">
              Тематика: <strong data-testid="current-topic">{panel.filter.name}</strong>
            </span>
            <button type="submit" name="intent" value="change-topic" className="btn-secondary px-2 py-1 text-xs">
              Сменить тематику
            </button>
          </Form>
        </div>
      ) : null}
    </div>
  );

  const message = answer?.error ? <ServerMessage key={answerKey} kind="error" message={answer.error.message} /> : null;

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
      {message}
      {/* Issue 18: a screen reader hears the next lead after a press (the page itself does not move). */}
      <p className="sr-only" aria-live="polite" data-testid="lead-announcement">
        {turn ? announce(turn.view) : ""}
      </p>
      {answer?.confirm ? <NoScriptConfirm confirm={answer.confirm} /> : null}
      {answer?.callback ? <NoScriptCallback callback={answer.callback} times={panel.callbackTimes} /> : null}
      {panel.onBreak ? <BreakNotice holdsLead={panel.lead !== null} /> : null}
      {panel.lead ? (
        <Form
          method="post"
          ref={formRef}
          onSubmit={onSubmit}
          onKeyDown={onFieldKeyDown}
          className="space-y-4"
          data-testid="lead-form"
        >
          <input type="hidden" name="intent" value="status" />
          <input type="hidden" name="contactId" value={panel.lead.id} />
          <div className="flex flex-wrap gap-2" data-testid="status-buttons">
            {panel.statuses.map((status) => (
              <button
                key={status.id}
                type="submit"
                name="statusId"
                value={status.id}
                data-report={status.isReportStatus ? "true" : "false"}
                data-callback={status.asksCallback ? "true" : "false"}
                aria-keyshortcuts={status.key === null ? undefined : String(status.key)}
                title={status.label === status.text ? undefined : status.text}
                // Not `disabled` (a disabled button drops the focus): a press in flight ignores the next (onSubmit).
                aria-disabled={busy || undefined}
                className={`btn shadow-sm ${statusEdgeClass(status.color)} ${busy ? "cursor-wait opacity-70" : ""}`}
                style={{ backgroundColor: status.color, color: textColorFor(status.color) }}
              >
                {status.label}
                {status.key === null ? null : <KeyCap>{String(status.key)}</KeyCap>}
              </button>
            ))}
          </div>
          {hydrated ? <AutodialBar autodial={autodial} client={client} /> : null}
          <LeadBody
            lead={panel.lead}
            card={panel.card}
            history={panel.history}
            template={panel.template}
            cardKey={`${panel.lead.id}-${lastTurn.current?.count ?? 0}`}
          />
        </Form>
      ) : panel.onBreak ? null : (
        <div className="card text-center text-base" data-testid="no-leads">
          <p>{NO_LEADS}</p>
          {panel.waitingForHours ? (
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400" data-testid="no-leads-hours">
              {WAITING_FOR_HOURS}
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

      <Modal
        open={pendingCallback !== null}
        onClose={() => setPendingCallback(null)}
        title={pendingCallback?.text}
        description={`${CALLBACK_QUESTION}${pendingCallback?.report ? ` ${REPORT_CONFIRM}` : ""}`}
        // Enter takes the first quick choice; Tab moves to the others and to the free choice.
        initialFocus={firstPreset}
        testId="callback-time"
      >
        <CallbackChoices
          times={panel.callbackTimes}
          firstRef={firstPreset}
          onPreset={(preset) => scheduleCallback({ preset })}
          onLocal={(local) => scheduleCallback({ local })}
        />
        <div className="mt-4 flex justify-end">
          <ModalClose />
        </div>
      </Modal>

      <Modal
        open={pendingReport !== null}
        onClose={() => setPendingReport(null)}
        title={pendingReport?.text}
        description={REPORT_CONFIRM}
        // Enter confirms (issue 18): the focus starts on «Да, я уверен!»; Esc closes.
        initialFocus={confirmButton}
        testId="report-confirm"
      >
        <div className="flex justify-end gap-2">
          <ModalClose />
          <button type="button" className="btn-primary" ref={confirmButton} onClick={confirmReport}>
            Да, я уверен!
          </button>
        </div>
      </Modal>

      <KeysDialog open={keysOpen} onOpenChange={setKeysOpen} autodial={autodial.state.kind !== "off"} />
    </section>
  );
}

/**
 * The lead's card, the client card's fields and the history. Rendered again only when the lead or its answer
 * changes (not while a press is in flight or the layout refreshes); the fields come back empty for each new
 * lead (SPEC §4: the client card is cleared), also when the same client comes back after a press.
 */
const LeadBody = memo(function LeadBody({
  lead,
  card,
  history,
  template,
  cardKey,
}: {
  lead: NonNullable<LeadPanel["lead"]>;
  card: LeadPanel["card"];
  history: HistoryEntry[];
  template: LeadPanel["template"];
  cardKey: string;
}) {
  const fields = template?.fields ?? [];
  return (
    <>
      <div className="grid gap-4 lg:grid-cols-2">
        <LeadCard rows={card} attempt={lead.attempt} action={<CallButton phone={lead.phone} contactId={lead.id} />} />
        <section key={cardKey} className="card space-y-3" aria-label="Карточка клиента">
          <h2 className="text-lg font-semibold">{template ? template.name : "Карточка клиента"}</h2>
          {fields.length === 0 ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">В шаблоне тематики нет полей.</p>
          ) : (
            fields.map((field, i) => (
              <div key={`${field.label}-${i}`}>
                <label className="label" htmlFor={`card-${i}`}>
                  {field.label}
                </label>
                <input type="hidden" name="cardLabel" value={field.label} />
                {field.type === "textarea" ? (
                  <textarea id={`card-${i}`} name="cardValue" className="input min-h-24" />
                ) : (
                  <input id={`card-${i}`} name="cardValue" className="input" />
                )}
              </div>
            ))
          )}
          <div>
            <label className="label" htmlFor="passport">
              Паспорт
            </label>
            <input id="passport" name="passport" className="input" placeholder="Введите паспорт" autoComplete="off" />
          </div>
        </section>
      </div>
      <section className="card space-y-2" aria-labelledby="client-history-title">
        <h2 id="client-history-title" className="text-lg font-semibold">
          История клиента
        </h2>
        <ClientHistory entries={history} />
      </section>
    </>
  );
});

/** True once the page runs in the browser (controls that need JavaScript are shown from then on). */
function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** The report confirmation without JavaScript: the same question, the card carried in hidden fields. */
function NoScriptConfirm({ confirm }: { confirm: ConfirmState }) {
  return (
    <section className="card mb-4 border-amber-300" data-testid="report-confirm">
      <h2 className="mb-2 text-lg font-semibold">{confirm.statusText}</h2>
      <p className="mb-3 text-sm">{REPORT_CONFIRM}</p>
      <pre className="mb-3 whitespace-pre-wrap rounded bg-slate-50 p-2 text-sm dark:bg-slate-900">
        {clientCardText(confirm.card)}
      </pre>
      <Form method="post" className="flex justify-end gap-2">
        <input type="hidden" name="intent" value="status" />
        <input type="hidden" name="confirmed" value="1" />
        <input type="hidden" name="statusId" value={confirm.statusId} />
        <input type="hidden" name="contactId" value={confirm.contactId} />
        <input type="hidden" name="passport" value={confirm.passport} />
        {confirm.card.map((field, i) => (
          <span key={i} hidden>
            <input type="hidden" name="cardLabel" value={field.label} />
            <input type="hidden" name="cardValue" value={field.value} />
          </span>
        ))}
        <Link to="/leadpanel" className="btn-secondary">
          Закрыть
        </Link>
        <button type="submit" className="btn-primary">
          Да, я уверен!
        </button>
      </Form>
    </section>
  );
}

const CALLBACK_QUESTION = "Когда перезвонить? Время киевское.";

interface CallbackTimes {
  presets: Array<{ value: string; label: string }>;
  min: string;
  initial: string;
}

/**
 * The quick choices and the free choice (with JavaScript: buttons that submit the press at once; Enter in the
 * free choice's field schedules it).
 */
function CallbackChoices({
  times,
  firstRef,
  onPreset,
  onLocal,
}: {
  times: CallbackTimes;
  firstRef?: RefObject<HTMLButtonElement>;
  onPreset: (preset: string) => void;
  onLocal: (local: string) => void;
}) {
  const [local, setLocal] = useState(times.initial);
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap gap-2">
        {times.presets.map((preset, i) => (
          <button key={preset.value} type="button" ref={i === 0 ? firstRef : undefined} className="btn-primary" onClick={() => onPreset(preset.value)}>
            {preset.label}
          </button>
        ))}
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <div>
          <label className="label" htmlFor="callback-local">
            Другое время
          </label>
          <input
            id="callback-local"
            type="datetime-local"
            className="input"
            min={times.min}
            value={local}
            onChange={(event) => setLocal(event.target.value)}
            // Chromium keeps Enter in a date field to itself (no implicit submission): schedule here.
            onKeyDown={(event) => {
              if (event.key !== "Enter") return;
              event.preventDefault();
              if (local) onLocal(local);
            }}
          />
        </div>
        <button type="button" className="btn-secondary" disabled={!local} onClick={() => onLocal(local)}>
          Запланировать
        </button>
      </div>
    </div>
  );
}

/** The callback time without JavaScript: the same choices as submit buttons, the card carried in hidden fields. */
function NoScriptCallback({ callback, times }: { callback: ConfirmState; times: CallbackTimes }) {
  return (
    <section className="card mb-4 border-amber-300" data-testid="callback-time">
      <h2 className="mb-2 text-lg font-semibold">{callback.statusText}</h2>
      <Form method="post" className="space-y-3">
        <p className="text-sm">{CALLBACK_QUESTION}</p>
        <input type="hidden" name="intent" value="status" />
        {callback.confirmed ? <input type="hidden" name="confirmed" value="1" /> : null}
        <input type="hidden" name="statusId" value={callback.statusId} />
        <input type="hidden" name="contactId" value={callback.contactId} />
        <input type="hidden" name="passport" value={callback.passport} />
        {callback.card.map((field, i) => (
          <span key={i} hidden>
            <input type="hidden" name="cardLabel" value={field.label} />
            <input type="hidden" name="cardValue" value={field.value} />
          </span>
        ))}
        <div className="flex flex-wrap gap-2">
          {times.presets.map((preset) => (
            <button key={preset.value} type="submit" name="callbackPreset" value={preset.value} className="btn-primary">
              {preset.label}
            </button>
          ))}
        </div>
        <div className="flex flex-wrap items-end gap-2">
          <div>
            <label className="label" htmlFor="callback-local-nojs">
              Другое время
            </label>
            <input id="callback-local-nojs" type="datetime-local" name="callbackLocal" className="input" min={times.min} defaultValue={times.initial} />
          </div>
          <button type="submit" className="btn-secondary">
            Запланировать
          </button>
          <Link to="/leadpanel" className="btn-secondary">
            Закрыть
          </Link>
        </div>
      </Form>
    </section>
  );
}
