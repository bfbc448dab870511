import type { ReactNode } from "react";
import type { Lead } from "../../../server/core/leads/allocation";

/** The held lead, as the core hands it out. */
export type LeadView = Lead;

const ROWS: Array<[keyof LeadView, string]> = [
  ["name", "Имя"],
  ["phone", "Телефон"],
  ["city", "Город"],
  ["address", "Адрес"],
  ["additionalInfo1", "Доп. информация 1"],
  ["additionalInfo2", "Доп. информация 2"],
  ["additionalInfo3", "Доп. информация 3"],
  ["additionalInfo4", "Доп. информация 4"],
];

/** SPEC /leadpanel client info: name, phone, city, address, additionalInfo1 to additionalInfo4. */
export function LeadCard({ lead, action }: { lead: LeadView; action?: ReactNode }) {
  return (
    <section className="card" aria-label="Клиент" data-testid="lead-card">
      <div className="mb-3 flex items-center justify-between gap-3">
        <h2 className="text-lg font-semibold">Клиент</h2>
        {action}
      </div>
      <dl className="grid gap-x-4 gap-y-2 sm:grid-cols-[max-content_1fr]">
        {ROWS.map(([key, label]) => (
          <div key={key} className="contents">
            <dt className="text-sm text-slate-600 dark:text-slate-400">{label}</dt>
            <dd className="break-words text-sm font-medium" data-testid={`lead-${key}`}>
              {String(lead[key]) || "—"}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
