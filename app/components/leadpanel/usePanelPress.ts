import { useEffect, useRef, useState, type FormEvent, type MutableRefObject, type RefObject } from "react";
import { reportCardProblem } from "../../../common/client-card";
import { notify, type ToastKind } from "../ui/Toasts";
import { readCard } from "./answer";
import { usePress } from "./usePress";

/** A press waiting for its dialog: the report confirmation, or the callback time (report: it was confirmed too). */
export interface PendingReport {
  statusId: number;
  text: string;
}
export interface PendingCallback extends PendingReport {
  report: boolean;
}

/**
 * The status press with JavaScript, from the button to the answer: the card check and the dialogs of a report or
 * callback status, the request, what the server said (toasts, a question it asked), the refresh after it, and the
 * focus put back on the status row.
 */
export function usePanelPress({
  formRef,
  statuses,
  navigating,
  refresh,
}: {
  formRef: RefObject<HTMLFormElement>;
  statuses: Array<{ id: number; text: string; buttonText: string }>;
  /** A navigation or a plain form post is under way: presses wait. */
  navigating: boolean;
  /** What the router did after a press through it: every loader again, or root and layout only. */
  refresh: { all(): void; layout(): void };
}) {
  const press = usePress();
  const [pendingReport, setPendingReport] = useState<PendingReport | null>(null);
  const [pendingCallback, setPendingCallback] = useState<PendingCallback | null>(null);
  /** The card check's message while the card is as it was refused (SPEC's text; the fields are marked with it). */
  const [cardProblem, setCardProblem] = useState<string | null>(null);
  const busy = press.pending || navigating;
  const slow = useSlow(busy);

  const pressedStatus = useRef<string | null>(null);

  // What the server said about a press: a refusal or a message as a toast; a question it asked (the status became
  // a report or callback one since the page was loaded) as its dialog. Then, once the answer is painted, what the
  // router did after a press through it: a refused press or a question reads every loader again (the lead or the
  // statuses changed under the page); a turn that may have changed the layout's figures refreshes root and layout.
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  useEffect(() => {
    const said = press.answer;
    if (!said) return;
    if (said.error) notify("error", said.error.message);
    if (said.message) notify(said.message.type as ToastKind, said.message.message);
    if (said.confirm) setPendingReport({ statusId: Number(said.confirm.statusId), text: said.confirm.statusText });
    else if (said.callback)
      setPendingCallback({ statusId: Number(said.callback.statusId), text: said.callback.statusText, report: Boolean(said.callback.confirmed) });
    if (!said.next || said.refreshLayout) {
      const frame = requestAnimationFrame(() => (said.next ? refreshRef.current.layout() : refreshRef.current.all()));
      return () => cancelAnimationFrame(frame);
    }
  }, [press.answer]);

  const cardFromForm = () => readCard(new FormData(formRef.current ?? undefined));

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
    const status = statuses.find((s) => String(s.id) === submitter.value);
    const text = status ? status.buttonText || status.text : "";
    const report = submitter.dataset.report === "true";
    // SPEC §4: a report status needs a filled card (and then the confirmation dialog).
    const problem = report ? reportCardProblem(cardFromForm()) : null;
    if (problem) {
      // Issue 41: the card's fields are marked and the first empty one takes the focus (a toast alone marked nothing).
      setCardProblem(problem);
      notify("error", problem);
      const empty = [...(formRef.current?.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("[name=cardValue]") ?? [])].find(
        (field) => field.value.trim() === "",
      );
      empty?.focus();
      return;
    }
    setCardProblem(null);
    // Issue 18: a status that asks for a callback time asks it first (a report's confirmation goes with it).
    if (submitter.dataset.callback === "true") setPendingCallback({ statusId: Number(submitter.value), text, report });
    else if (report) setPendingReport({ statusId: Number(submitter.value), text });
    else send(submitter.value);
  }

  function confirmReport() {
    if (!pendingReport) return;
    const statusId = pendingReport.statusId;
    setPendingReport(null);
    send(statusId, { confirmed: "1" });
  }

  function scheduleCallback(choice: ({ preset: string } | { local: string }) & { note: string }) {
    if (!pendingCallback) return;
    const { statusId, report } = pendingCallback;
    setPendingCallback(null);
    send(statusId, {
      ...(report ? { confirmed: "1" } : {}),
      ...("preset" in choice ? { callbackPreset: choice.preset } : { callbackLocal: choice.local }),
      callbackNote: choice.note,
    });
  }

  return {
    busy,
    /** A press still unanswered after SLOW_PRESS_MS: the status row says so (dimmed, a waiting cursor). */
    slow,
    /** The status of the last press, until the focus was put back after it (useFocusAfterPress). */
    pressedStatus,
    answer: press.answer,
    onSubmit,
    pendingReport,
    pendingCallback,
    cardProblem,
    /** The manager typed in the card, or another lead came: the marks go. */
    clearCardProblem: () => setCardProblem(null),
    closeReport: () => setPendingReport(null),
    closeCallback: () => setPendingCallback(null),
    confirmReport,
    scheduleCallback,
  };
}

/**
 * How long a press waits before the status row is dimmed. A quicker answer changes nothing on screen in between:
 * the dimming's 150 ms fade, started at the press, kept the browser drawing a frame every 16.7 ms, and the next lead
 * then waited for the next of those frames and for the rest of the fade's work (the paint bench: the answer →
 * painted 21 → 11.5 ms median, decision 068).
 */
export const SLOW_PRESS_MS = 300;

/** True once `busy` has lasted SLOW_PRESS_MS; false again as soon as it ends. */
function useSlow(busy: boolean) {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    if (!busy) return;
    const timer = setTimeout(() => setSlow(true), SLOW_PRESS_MS);
    return () => {
      clearTimeout(timer);
      setSlow(false);
    };
  }, [busy]);
  return slow;
}

/**
 * Keyboard work: when a press left the focus nowhere (the form went and came back with the empty state between, or
 * a dialog closed), put it back on the status row (on the same status when the topic still has it).
 */
export function useFocusAfterPress(
  press: { busy: boolean; pressedStatus: MutableRefObject<string | null> },
  formRef: RefObject<HTMLFormElement>,
  leadId: number | undefined,
) {
  const { busy, pressedStatus } = press;
  useEffect(() => {
    if (busy || pressedStatus.current === null) return;
    const pressedId = pressedStatus.current;
    pressedStatus.current = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    const row = formRef.current?.querySelector<HTMLElement>("[data-testid=status-buttons]");
    (row?.querySelector<HTMLButtonElement>(`button[value="${pressedId}"]`) ?? row?.querySelector("button"))?.focus();
  }, [leadId, busy, pressedStatus, formRef]);
}
