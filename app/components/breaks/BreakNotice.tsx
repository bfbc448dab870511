import { Form, useFetcher } from "@remix-run/react";
import { useHydrated } from "../ui/hydrated";
import { BREAK_FETCHER, END_BREAK } from "./BreakToggle";

export const ON_BREAK_TITLE = "Вы на перерыве";
export const ON_BREAK_NO_LEADS = "Новые лиды не выдаются, пока вы не закончите перерыв.";
export const ON_BREAK_HOLDING = "Этот клиент остаётся за вами. Статус сохранится, но следующий лид не выдаётся, пока вы не закончите перерыв.";

/**
 * The lead panel during a break (issue 18): in place of a new lead, or above the lead he kept, with the button
 * that ends it (a plain form post without JavaScript; with it, the header's fetcher, so the next lead comes in
 * without a page load).
 */
export function BreakNotice({ holdsLead }: { holdsLead: boolean }) {
  const fetcher = useFetcher({ key: BREAK_FETCHER });
  const hydrated = useHydrated();
  const FormComponent = hydrated ? fetcher.Form : Form;
  return (
    <section
      className="card mb-4 flex flex-wrap items-center justify-between gap-3 border-amber-300 bg-amber-50 dark:border-amber-700 dark:bg-amber-950"
      role="status"
      data-testid="break-notice"
    >
      <div className="min-w-0 space-y-1">
        <p className="text-base font-semibold">{ON_BREAK_TITLE}</p>
        <p className="text-sm">{holdsLead ? ON_BREAK_HOLDING : ON_BREAK_NO_LEADS}</p>
      </div>
      <FormComponent method="post" action="/break">
        <input type="hidden" name="intent" value="end" />
        <input type="hidden" name="redirectTo" value="/leadpanel" />
        {hydrated ? <input type="hidden" name="_js" value="1" /> : null}
        <button type="submit" className="btn-primary" disabled={fetcher.state !== "idle"} data-testid="break-end">
          {END_BREAK}
        </button>
      </FormComponent>
    </section>
  );
}
