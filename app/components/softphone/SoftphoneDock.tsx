import { lazy, Suspense, useEffect, useRef } from "react";
import { useLocation, useNavigate, useRevalidator } from "@remix-run/react";
import { afterStylesheet } from "../../lib/stylesheet-complete";
import { CALL_KEY_CODE, isTypingTarget, KeyCap } from "../leads/key-cap";
import { PhoneStatus } from "./PhoneStatus";
import { useSoftphone } from "./SoftphoneProvider";

/**
 * The caller's card shows only while a call comes in, so never before the softphone runs (after hydration): its
 * code is fetched once the softphone is up, not before the page is interactive (decision 090), and drawn once the
 * whole stylesheet is in (decision 093).
 */
const loadIncomingCard = () => afterStylesheet(import("./IncomingCard"));
const IncomingCard = lazy(() => loadIncomingCard().then((module) => ({ default: module.IncomingCard })));

/**
 * The phone on every page (above the footer, clear of its test-call button): its state, and the buttons for the
 * call in progress, unless a page's call panel says them. An incoming call rings here whatever page the manager
 * is on (Ответить / Отклонить).
 */
export function SoftphoneDock() {
  const { state, answer, hangUp, phoneShownByPage } = useSoftphone();
  const takeCaller = useTakeCaller();
  const ringingIn = state?.call === "ringing";
  const answerCall = () => {
    answer();
    if (state?.sipCallId) takeCaller(state.sipCallId);
  };
  useIncomingCallKeys(ringingIn, answerCall, hangUp);
  const running = state !== null;
  useEffect(() => {
    // In before the first call comes in (a failed fetch is tried again when the card is drawn).
    if (running) loadIncomingCard().catch(() => {});
  }, [running]);
  if (!state) return null;
  // The lead panel says the phone's state and has the buttons of its own calls (issue 31: the dock said it a second
  // time and covered the status buttons on a phone); an incoming call still rings and is handled here.
  if (phoneShownByPage && !(state.direction === "in" && state.call !== "idle")) return null;
  const active = state.call === "calling" || state.call === "inCall";
  return (
    <div
      className={`fixed bottom-14 right-4 z-40 flex max-w-[calc(100vw-2rem)] flex-wrap items-center gap-3 rounded-lg border bg-white px-3 py-2 shadow-md dark:bg-slate-800 ${
        ringingIn ? "border-blue-400 ring-2 ring-blue-300" : "border-slate-200 dark:border-slate-700"
      }`}
      data-testid="softphone"
      aria-label="Телефон"
    >
      <span aria-hidden="true">☎</span>
      <div className="flex flex-col gap-1">
        <PhoneStatus state={state} testId="softphone-state" />
        {state.direction === "in" && state.call !== "idle" ? (
          <Suspense fallback={null}>
            <IncomingCard sipCallId={state.sipCallId} />
          </Suspense>
        ) : null}
      </div>
      {ringingIn ? (
        <>
          <button type="button" className="btn-primary px-2 py-1" onClick={answerCall} aria-keyshortcuts="Enter C" data-testid="softphone-answer">
            Ответить
            <KeyCap>Enter</KeyCap>
          </button>
          <button type="button" className="btn-danger px-2 py-1" onClick={hangUp} aria-keyshortcuts="Escape" data-testid="softphone-reject">
            Отклонить
            <KeyCap>Esc</KeyCap>
          </button>
        </>
      ) : null}
      {active ? (
        <button type="button" className="btn-danger px-2 py-1" onClick={hangUp} data-testid="softphone-hang-up">
          Завершить
        </button>
      ) : null}
    </div>
  );
}

/**
 * While a call rings in, on any page: Enter or C (the lead panel's call key, ЙЦУКЕН С) answers, Esc declines
 * (issue 42). Not while the focus is in a field or a dialog is open (their Enter and Esc are theirs). Taken in
 * the capture phase, so the lead panel's own C (call the lead) does not act on the same press.
 */
function useIncomingCallKeys(ringingIn: boolean, answer: () => void, decline: () => void) {
  const actions = useRef({ answer, decline });
  actions.current = { answer, decline };
  useEffect(() => {
    if (!ringingIn) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.defaultPrevented || event.repeat || event.isComposing) return;
      if (event.ctrlKey || event.altKey || event.metaKey || event.shiftKey) return;
      if (isTypingTarget(document.activeElement) || document.querySelector("[role=dialog], [role=alertdialog]")) return;
      const act = event.key === "Enter" || event.code === CALL_KEY_CODE ? "answer" : event.key === "Escape" ? "decline" : null;
      if (!act) return;
      event.preventDefault();
      event.stopPropagation();
      actions.current[act]();
    }
    window.addEventListener("keydown", onKeyDown, { capture: true });
    return () => window.removeEventListener("keydown", onKeyDown, { capture: true });
  }, [ringingIn]);
}

/**
 * After «Ответить»: the caller's card becomes the manager's lead (POST /incoming) and the lead panel shows it, where
 * he presses a status as for any lead. A caller who is no client of his topics leaves the page as it is.
 */
function useTakeCaller() {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const revalidator = useRevalidator();
  return (sipCallId: string) => {
    fetch("/incoming", { method: "POST", body: new URLSearchParams({ sipCallId }), headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : { taken: false }))
      .then(({ taken }: { taken: boolean }) => {
        if (!taken) return;
        if (pathname === "/leadpanel") revalidator.revalidate();
        else navigate("/leadpanel");
      })
      .catch(() => {});
  };
}
