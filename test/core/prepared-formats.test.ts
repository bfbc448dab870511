import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { formatUsd, PREPARE_MONEY_FORMAT } from "../../app/lib/format";

/**
 * Decision 094: the document's script makes the money formatter while the page's modules download, so that the
 * balance the layout formats in hydration finds the locale's data loaded. Run here as a browser runs it: with an
 * idle callback (Chromium, Firefox) or a timer (Safari has none).
 */
function runScript(self: Record<string, unknown>) {
  const made: Array<ConstructorParameters<typeof Intl.NumberFormat>> = [];
  const timers: Array<() => void> = [];
  const IntlSeen = {
    NumberFormat: function (...args: ConstructorParameters<typeof Intl.NumberFormat>) {
      made.push(args);
      return new Intl.NumberFormat(...args);
    },
  };
  vm.runInNewContext(PREPARE_MONEY_FORMAT, { self, Intl: IntlSeen, setTimeout: (run: () => void) => timers.push(run) });
  return { made, timers };
}

describe("the document's prepared money formatter", () => {
  it("is made once the browser is idle, the same formatter the balance uses", () => {
    const idle: Array<() => void> = [];
    const { made } = runScript({ requestIdleCallback: (run: () => void) => idle.push(run) });
    expect(made).toEqual([]);
    idle.forEach((run) => run());
    expect(made).toHaveLength(1);
    expect(new Intl.NumberFormat(...made[0]).format(1234.5)).toBe(formatUsd(1234.5));
    expect(formatUsd(1234.5)).toMatch(/^1\s234,50\s\$$/);
  });

  it("is made after a timer where the browser has no idle callback", () => {
    const { made, timers } = runScript({});
    expect(made).toEqual([]);
    timers.forEach((run) => run());
    expect(made).toHaveLength(1);
  });
});
