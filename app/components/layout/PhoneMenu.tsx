import { useEffect } from "react";
import { CloseIcon } from "../ui/Icons";

/**
 * Closing the menu on a phone (issue 31: the open drawer covered ☰ and nothing closed it). The menu is the
 * `#menu-toggle` checkbox, so closing works without JavaScript: the dimmed rest of the page and ✕ are labels
 * for it. With JavaScript, Esc and a followed link close it too. At desk width the menu is part of the page and
 * none of this shows.
 */
const MENU_ID = "menu-toggle";
const DESK = "(min-width: 1100px)";

/** The dimmed page behind the open menu: a tap on it closes the menu. A sibling after the checkbox (peer). */
export function MenuBackdrop() {
  return (
    <label
      htmlFor={MENU_ID}
      aria-hidden="true"
      className="fixed inset-0 z-[25] hidden cursor-pointer bg-slate-900/50 peer-checked:block desk:peer-checked:hidden"
      data-testid="menu-backdrop"
    />
  );
}

/** ✕ in the menu's title row, on a phone. */
export function MenuCloseButton() {
  return (
    <label htmlFor={MENU_ID} className="btn-secondary ml-auto cursor-pointer px-2 py-1.5 desk:hidden" title="Закрыть меню" data-testid="menu-close">
      <CloseIcon />
      <span className="sr-only">Закрыть меню</span>
    </label>
  );
}

const phoneMenu = () => {
  const menu = document.getElementById(MENU_ID);
  return menu instanceof HTMLInputElement && menu.checked && !window.matchMedia(DESK).matches ? menu : null;
};

/** With JavaScript: Esc closes the open phone menu (the focus goes back to its toggle), and so does a navigation. */
export function usePhoneMenuClosing(locationKey: string) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const menu = event.key === "Escape" ? phoneMenu() : null;
      if (!menu) return;
      menu.checked = false;
      // Back to the toggle the keyboard uses: ☰ with JavaScript.
      (document.querySelector<HTMLElement>('header label[for="menu-toggle"][tabindex="0"]') ?? menu).focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  useEffect(() => {
    const menu = phoneMenu();
    if (menu) menu.checked = false;
  }, [locationKey]);
}
