import { useEffect, useState } from "react";
import type { IncomingCard as Card } from "../../../server/core/telephony/inbound";
import { formatKyiv } from "../../../common/business-zone";
import { DoNotCallNotice } from "../ui/DoNotCallNotice";
import { callDirectionText } from "../../../common/call-direction";
// Loaded after the layout, and shares its modules: one chunk with them (app/layout-chunk.ts, decision 090).
import "../../layout-chunk";

const OUTCOMES: Record<string, string> = {
  answered: "разговор",
  busy: "занято",
  no_answer: "не ответил",
  failed: "не состоялся",
  cancelled: "отменён",
};

/**
 * The client's card while his call rings the manager (issue 42): name, number, topic, last status and note, a
 * callback if one is pending, the last calls; «Не звонить» in red. Read from /incoming by the call's SIP Call-ID.
 */
export function IncomingCard({ sipCallId }: { sipCallId: string | null }) {
  const [card, setCard] = useState<Card | null>(null);
  useEffect(() => {
    setCard(null);
    if (!sipCallId) return;
    const controller = new AbortController();
    fetch(`/incoming?sipCallId=${encodeURIComponent(sipCallId)}`, { signal: controller.signal, headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : { card: null }))
      .then((body: { card: Card | null }) => setCard(body.card))
      .catch(() => {});
    return () => controller.abort();
  }, [sipCallId]);
  if (!card) return null;
  return (
    <div className="max-w-xs space-y-1 text-sm" data-testid="incoming-card">
      <p className="font-semibold" data-testid="incoming-name">
        {card.name || card.phone}
      </p>
      <p className="text-slate-600 dark:text-slate-400">
        {card.phone}
        {card.topic ? ` · ${card.topic}` : ""}
      </p>
      {card.doNotCall ? <DoNotCallNotice testId="incoming-do-not-call" /> : null}
      {card.status ? <p data-testid="incoming-status">{`Последний статус: ${card.status}${card.note ? ` — ${card.note}` : ""}`}</p> : null}
      {card.callback ? <p>{`Перезвон: ${formatKyiv(card.callback.dueAt)}${card.callback.text ? `, ${card.callback.text}` : ""}`}</p> : null}
      {card.calls.length > 0 ? (
        <ul className="text-xs text-slate-600 dark:text-slate-400" aria-label="Последние звонки" data-testid="incoming-calls">
          {card.calls.map((call) => (
            <li key={call.at}>
              {`${formatKyiv(call.at)} · ${callDirectionText(call.direction)} · ${OUTCOMES[call.outcome ?? ""] ?? "—"}${
                call.manager ? ` · ${call.manager}` : ""
              }`}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
