import { TEST_CALL_NUMBER } from "../../lib/softphone/machine";
import { useSoftphone } from "./SoftphoneProvider";

/** SPEC Layout footer: a hidden button that dials the test number 210 (it shows on hover or keyboard focus). */
export function TestCallButton() {
  const { state, call } = useSoftphone();
  if (!state) return null;
  return (
    <button
      type="button"
      className="rounded px-1 text-slate-600 dark:text-slate-400 opacity-0 transition hover:opacity-100 focus:opacity-100"
      title="Тестовый звонок"
      aria-label="Тестовый звонок"
      data-testid="test-call"
      onClick={() => call(TEST_CALL_NUMBER)}
    >
      ☎ {TEST_CALL_NUMBER}
    </button>
  );
}
