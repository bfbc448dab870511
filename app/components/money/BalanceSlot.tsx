import * as Dialog from "@radix-ui/react-dialog";
import { useCallback, useEffect, useRef, useState } from "react";
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
 * When the balance has risen (notify), a congratulation popup shows the amount of the last credit.
 * A rise seen by the layout's own refresh triggers a poll at once, so the popup does not wait 30 s.
 */
export function BalanceSlot({ initial }: { initial: number }) {
  const [balance, setBalance] = useState(initial);
  const [congrats, setCongrats] = useState<number | null>(null);
  const seen = useRef(initial);

  const poll = useCallback(async () => {
    try {
      const response = await fetch("/balance", { headers: { Accept: "application/json" }, cache: "no-store" });
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
      <Dialog.Root open={congrats !== null} onOpenChange={(open) => (open ? undefined : setCongrats(null))}>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
          <Dialog.Content
            className="fixed left-1/2 top-1/2 z-50 w-[90vw] max-w-sm -translate-x-1/2 -translate-y-1/2 rounded-lg bg-white p-6 text-center shadow-xl dark:bg-slate-800"
            data-testid="balance-popup"
            aria-describedby="balance-popup-text"
          >
            <Dialog.Title className="mb-2 text-xl font-semibold">Поздравляем!</Dialog.Title>
            <p id="balance-popup-text" className="mb-4">
              Вам начислено <span className="font-semibold">{formatUsd(congrats ?? 0)}</span>
            </p>
            <Dialog.Close className="btn-primary">Отлично</Dialog.Close>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </>
  );
}
