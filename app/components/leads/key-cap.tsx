/**
 * The keys every page of the layout uses (issue 18): the phone's C (an incoming call is answered with it on any
 * page), whether the focus is where typing goes, and a key's label on a button. Keys are read by
 * KeyboardEvent.code, the physical key, so they are the same on the Russian and the English layout. The lead
 * panel's own keys are in keys.tsx.
 */
export const CALL_KEY_CODE = "KeyC";

/** The focus is where typing goes: a text field, a list, or editable text (the script editor). */
export function isTypingTarget(element: Element | null): boolean {
  if (!element || !(element instanceof HTMLElement)) return false;
  if (element.isContentEditable) return true;
  const tag = element.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}

/** A key's label on a button: small, in the button's own text colour, so it reads on any status colour and theme. */
export function KeyCap({ children }: { children: string }) {
  return (
    <kbd
      aria-hidden="true"
      className="ml-1.5 inline-flex h-[1.15rem] min-w-[1.15rem] items-center justify-center rounded border border-current px-1 font-mono text-[0.7rem] font-semibold leading-none"
      data-testid="keycap"
    >
      {children}
    </kbd>
  );
}
