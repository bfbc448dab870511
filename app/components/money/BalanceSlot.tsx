import { useCallback, useEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";
import { formatUsd } from "../../lib/format";

/** SPEC §9: the balance refreshes every 30 s. */
export const BALANCE_POLL_MS = 30_000;

interface BalanceReading {
  balance: number;
  notify: boolean;
  lastNotify: number;
}

/**
 * The header balance: server-rendered from the layout's user, then polled from /balance with JavaScript.
 * When the balance has risen (notify), a congratulation popup shows the amount of the last credit; it is a
 * corner notice, never a modal, so it cannot swallow a click meant for the lead panel (issue 17).
 * A rise seen by the layout's own refresh triggers a poll at once, so the popup does not wait 30 s.
 */
export function BalanceSlot({ initial }: { initial: number }) {
  const [balance, setBalance] = useState(initial);
  const [congrats, setCongrats] = useState<number | null>(null);
  const seen = useRef(initial);

  const poll = useCallback(async () => {
    try {
      const response = await fetch("/balance", {
        headers: { Accept: "application/json" },
        cache: "no-store",
      });
      if (!response.ok) return;
      const reading = (await response.json()) as BalanceReading;
      seen.current = reading.balance;
      setBalance(reading.balance);
      if (reading.notify) setCongrats(reading.lastNotify);
    } catch {
      // Offline for a moment: the next poll tries again.
    }
  }, []);

  useEffect(() => {
    void poll();
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void poll();
    }, BALANCE_POLL_MS);
    return () => clearInterval(timer);
  }, [poll]);

  useEffect(() => {
    if (initial > seen.current) void poll();
    else {
      seen.current = initial;
      setBalance(initial);
    }
  }, [initial, poll]);

  return (
    <>
      <span data-testid="balance-value">{formatUsd(balance)}</span>
      {congrats !== null
        ? createPortal(
            // SPEC's congratulation popup, but non-modal (issue 17): no overlay, no focus grab, and it sits in the
            // header's band (scrolling away with it), so it never lies over the lead panel's buttons.
            <div
              role="status"
              className="absolute left-2 right-2 top-1 z-30 flex items-center justify-between gap-3 rounded-lg border border-green-300 bg-white px-3 py-1.5 text-sm shadow-lg dark:border-green-700 dark:bg-slate-800 desk:left-1/2 desk:right-auto desk:top-2 desk:-translate-x-1/2"
              data-testid="balance-popup"
            >
              <span>
                <span className="font-semibold">Поздравляем!</span> Вам начислено <span className="font-semibold">{formatUsd(congrats)}</span>
              </span>
              <button type="button" className="btn-primary px-2 py-1 text-xs" onClick={() => setCongrats(null)}>
                Отлично
              </button>
            </div>,
            document.body,
          )
        : null}
    </>
  );
}
