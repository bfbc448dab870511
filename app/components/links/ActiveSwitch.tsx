import { useFetcher } from "@remix-run/react";

/**
 * An activation toggle shown as Активирован / Деактивирован (SPEC §4). A plain form post underneath (works
 * without JavaScript); with it, a fetcher flips the switch at once and the page's data follows.
 */
export function ActiveSwitch({ id, intent, isActive, label }: { id: number; intent: string; isActive: boolean; label: string }) {
  const fetcher = useFetcher();
  const shown = fetcher.formData ? !isActive : isActive;
  return (
    <fetcher.Form method="post" preventScrollReset className="inline">
      <input type="hidden" name="id" value={id} />
      <button
        type="submit"
        name="intent"
        value={intent}
        role="switch"
        aria-checked={shown}
        aria-label={label}
        className="inline-flex items-center gap-2 text-sm"
      >
        <span
          aria-hidden="true"
          className={`relative inline-block h-5 w-9 rounded-full transition ${shown ? "bg-green-500" : "bg-slate-300 dark:bg-slate-600"}`}
        >
          <span className={`absolute top-0.5 h-4 w-4 rounded-full bg-white shadow transition ${shown ? "left-4" : "left-0.5"}`} />
        </span>
        <span className={shown ? "text-green-700 dark:text-green-400" : "text-slate-600 dark:text-slate-400"}>
          {shown ? "Активирован" : "Деактивирован"}
        </span>
      </button>
    </fetcher.Form>
  );
}
