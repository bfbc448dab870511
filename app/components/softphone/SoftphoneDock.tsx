import { useLocation, useNavigate, useRevalidator } from "@remix-run/react";
import { IncomingCard } from "./IncomingCard";
import { PhoneStatus } from "./PhoneStatus";
import { useSoftphone } from "./SoftphoneProvider";

/**
 * The phone on every page (above the footer, clear of its test-call button): its state, and the buttons for the
 * call in progress, unless a page's call panel says them. An incoming call rings here whatever page the manager
 * is on (Ответить / Отклонить).
 */
export function SoftphoneDock() {
  const { state, answer, hangUp, phoneShownByPage } = useSoftphone();
  const takeCaller = useTakeCaller();
  if (!state) return null;
  const ringingIn = state.call === "ringing";
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
        {state.direction === "in" && state.call !== "idle" ? <IncomingCard sipCallId={state.sipCallId} /> : null}
      </div>
      {ringingIn ? (
        <>
          <button
            type="button"
            className="btn-primary px-2 py-1"
            onClick={() => {
              answer();
              if (state.sipCallId) takeCaller(state.sipCallId);
            }}
            data-testid="softphone-answer"
          >
            Ответить
          </button>
          <button type="button" className="btn-danger px-2 py-1" onClick={hangUp} data-testid="softphone-reject">
            Отклонить
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
