import { Form, Link, useLocation } from "@remix-run/react";
import { formatUsd } from "../../lib/format";
import type { KeyboardEvent, ReactNode } from "react";
import { MenuIcon, MoonIcon, SunIcon } from "../ui/Icons";
import { LogoutForm } from "./LogoutForm";
import { useHydrated } from "../ui/hydrated";

/** Enter or Space on ☰ flips the menu's checkbox, as a click on the label does. */
function flipMenu(event: KeyboardEvent<HTMLLabelElement>) {
  if (event.key !== "Enter" && event.key !== " ") return;
  event.preventDefault();
  event.currentTarget.click();
}

interface HeaderProps {
  user: { displayName: string; isAdmin: boolean; balance: number };
  theme: "light" | "dark";
  helpUrl: string;
  /** Replaces the plain balance (the balance feature polls it and shows the popup). */
  balanceSlot?: ReactNode;
  /** The break toggle (Перерыв / Закончить перерыв) for those who work leads. */
  breakSlot?: ReactNode;
}

/** SPEC Layout header: menu toggle, balance, messenger link, theme toggle, profile link; and «Выйти» (issue 41). */
export function Header({ user, theme, helpUrl, balanceSlot, breakSlot }: HeaderProps) {
  const location = useLocation();
  const hydrated = useHydrated();
  const nextTheme = theme === "dark" ? "light" : "dark";
  // Issue 41 §13: on a phone the header shows the name's first word whole (the rest from desk width; the title
  // and the link's text keep it all), so «Ольга Петренко» is «Ольга», not «О…».
  const name = user.displayName.trim() || "Профиль";
  const space = name.indexOf(" ");
  const [first, rest] = space < 0 ? [name, ""] : [name.slice(0, space), name.slice(space)];
  return (
    // Narrower gaps on a phone: every control and the name fit one row at 390 px.
    <header className="sticky top-0 z-20 flex h-14 items-center gap-2 border-b border-slate-200 bg-white px-4 dark:border-slate-700 dark:bg-slate-900 desk:gap-3">
      {/* With JavaScript ☰ is the menu's Tab stop (Enter or Space flips it), at every width (issue 41). */}
      <label
        htmlFor="menu-toggle"
        className="btn-secondary cursor-pointer select-none px-2 py-1.5"
        title="Меню"
        data-testid="menu-button"
        {...(hydrated ? { tabIndex: 0, role: "button", onKeyDown: flipMenu } : {})}
      >
        <MenuIcon />
        <span className="sr-only">Меню</span>
      </label>
      <div className="flex-1" />
      {breakSlot}
      <span className="whitespace-nowrap text-sm font-medium" data-testid="balance" title="Баланс">
        {balanceSlot ?? formatUsd(user.balance)}
      </span>
      {/* On a phone a «?» (its name for screen readers), so the manager's name keeps its room. */}
      <a href={helpUrl} target="_blank" rel="noreferrer" className="shrink-0 text-sm text-blue-600 hover:underline dark:text-blue-400" title="Помощь">
        <span aria-hidden="true" className="px-1 font-semibold desk:hidden">
          ?
        </span>
        <span className="sr-only desk:not-sr-only">Помощь</span>
      </a>
      <Form method="post" action="/theme" className="inline">
        <input type="hidden" name="theme" value={nextTheme} />
        <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
        <button
          type="submit"
          className="btn-secondary px-2 py-1.5"
          aria-label={theme === "dark" ? "Светлая тема" : "Тёмная тема"}
          title={theme === "dark" ? "Светлая тема" : "Тёмная тема"}
          data-testid="theme-toggle"
        >
          {theme === "dark" ? <SunIcon /> : <MoonIcon />}
        </button>
      </Form>
      {/* relative: the rest of the name, sr-only (absolute) on a phone, is clipped by the link, not widening the page. */}
      <Link
        to={user.isAdmin ? "/profile" : "/"}
        className="relative min-w-0 max-w-[10rem] truncate text-sm font-medium hover:underline desk:max-w-xs"
        title={name}
        data-testid="profile-link"
      >
        {first}
        {rest ? <span className="sr-only desk:not-sr-only">{rest}</span> : null}
      </Link>
      {/* At desk width; on a phone «Выйти» is in the menu (the header has no room). */}
      <LogoutForm className="hidden desk:block" testId="header-logout" />
    </header>
  );
}
