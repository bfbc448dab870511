import { useRef, useState } from "react";
import { flushSync } from "react-dom";
import { PRESS_PATH } from "../../../common/press-path";
import type { PressAnswer } from "./answer";

/**
 * A status press with JavaScript (decision 065). The request leaves in the press's own task (through the router
 * it waited for a render of the pending state and a read of the form back from a Request), and the answer is
 * rendered as soon as it is in. One press at a time: another while one is in flight is dropped. A redirect (the
 * session ended) is followed as a page load; any other failure shows the error page, as it did through the router.
 */
export function usePress() {
  const [state, setState] = useState<{ pending: boolean; answer: PressAnswer | null; failure: unknown }>({
    pending: false,
    answer: null,
    failure: null,
  });
  const inFlight = useRef(false);
  if (state.failure) throw state.failure;

  function send(form: FormData) {
    if (inFlight.current) return;
    inFlight.current = true;
    const body = new URLSearchParams();
    for (const [name, value] of form) body.append(name, String(value));
    const request = fetch(PRESS_PATH, { method: "POST", body, headers: { Accept: "application/json" } });
    setState((s) => ({ ...s, pending: true }));
    request
      .then(async (response) => {
        if (response.redirected) {
          window.location.assign(response.url);
          return;
        }
        if (!response.headers.get("Content-Type")?.includes("application/json")) {
          // As the router would have thrown it: the error page tells a 503 (database away) from anything else.
          throw { status: response.status, statusText: response.statusText, internal: false, data: await response.text() };
        }
        const answer = (await response.json()) as PressAnswer;
        // Rendered in this task, not after whatever else is queued (the next lead is what the manager waits for).
        flushSync(() => setState({ pending: false, answer, failure: null }));
      })
      .catch((failure: unknown) => setState((s) => ({ ...s, pending: false, failure })))
      .finally(() => {
        inFlight.current = false;
      });
  }

  return { pending: state.pending, answer: state.answer, send, inFlight: () => inFlight.current };
}
