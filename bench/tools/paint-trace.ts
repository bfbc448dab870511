import fs from "node:fs";
import { PRESS_PATH } from "../../common/press-path";

/**
 * Reads a Chromium trace taken by bench/paint.ts (BENCH_PAINT_TRACE=file.json) and prints, for each traced press,
 * what the page's main thread did from the keydown to the frame after the next lead: the action's request (sent,
 * answered), any other data request, and every task of more than 0.2 ms with what took its time.
 *
 *   node --import tsx bench/tools/paint-trace.ts file.json
 */
interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: Record<string, unknown> };
}

const file = process.argv[2];
if (!file) throw new Error("usage: paint-trace.ts trace.json");
const raw = JSON.parse(fs.readFileSync(file, "utf8")) as { traceEvents: TraceEvent[] } | TraceEvent[];
const events = Array.isArray(raw) ? raw : raw.traceEvents;

// The page's main thread: the one that holds the bench's marks.
const painted = events.filter((e) => e.name === "lead-painted");
if (painted.length === 0) throw new Error("no lead-painted marks in the trace");
const { pid, tid } = painted[0];
const main = events.filter((e) => e.pid === pid && e.tid === tid).sort((a, b) => a.ts - b.ts);
const network = events.filter((e) => e.name.startsWith("Resource")).sort((a, b) => a.ts - b.ts);
const ms = (us: number) => (us / 1000).toFixed(1);

const TOP = new Set(["ThreadControllerImpl::RunTask", "RunTask"]);
const tasks = main.filter((e) => e.ph === "X" && TOP.has(e.name));

function label(e: TraceEvent): string {
  const d = e.args?.data ?? {};
  if (e.name === "EventDispatch") return `EventDispatch ${String(d.type)}`;
  if (e.name === "FunctionCall")
    return `FunctionCall ${String(d.functionName || "")} ${String(d.url || "")
      .split("/")
      .pop()}:${String(d.lineNumber ?? "")}`;
  if (e.name === "TimerFire") return "TimerFire";
  return e.name;
}

/** What filled a task: its inner events by name, the longest first (nested time counted in each). */
function inside(task: TraceEvent): string {
  const end = task.ts + (task.dur ?? 0);
  const sums = new Map<string, number>();
  for (const e of main) {
    if (e === task || e.ph !== "X" || e.ts < task.ts || e.ts > end) continue;
    if (TOP.has(e.name)) continue;
    const key = label(e);
    sums.set(key, (sums.get(key) ?? 0) + (e.dur ?? 0));
  }
  return [...sums]
    .filter(([, dur]) => dur >= 100)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([name, dur]) => `${name} ${ms(dur)}`)
    .join("; ");
}

for (const mark of painted) {
  const press = [...main]
    .reverse()
    .find((e) => e.name === "EventDispatch" && e.ts < mark.ts && (e.args?.data?.type === "keydown" || e.args?.data?.type === "pointerdown"));
  if (!press) continue;
  const t0 = press.ts;
  const at = (ts: number) => `+${ms(ts - t0)}`;
  console.log(`\n== press (${String(press.args?.data?.type)}) → painted ${ms(mark.ts - t0)} ms`);
  const inDom = main.find((e) => e.name === "lead-in-dom" && e.ts > t0 && e.ts <= mark.ts);
  if (inDom) console.log(`lead in the DOM ${at(inDom.ts)}`);
  for (const e of network) {
    if (e.ts < t0 || e.ts > mark.ts + 200_000) continue;
    const d = e.args?.data ?? {};
    if (e.name === "ResourceSendRequest") {
      const url = String(d.url ?? "");
      if (!url.includes(".data") && !url.includes(PRESS_PATH) && !url.includes("/balance")) continue;
      const id = d.requestId;
      const done = network.find((n) => n.name === "ResourceFinish" && n.args?.data?.requestId === id);
      const response = network.find((n) => n.name === "ResourceReceiveResponse" && n.args?.data?.requestId === id);
      console.log(
        `${String(d.requestMethod)} ${url.replace(/^https?:\/\/[^/]+/, "")}: sent ${at(e.ts)}, response ${response ? at(response.ts) : "?"}, finished ${done ? at(done.ts) : "?"}`,
      );
    }
  }
  for (const task of tasks) {
    if (task.ts + (task.dur ?? 0) < t0 || task.ts > mark.ts) continue;
    if ((task.dur ?? 0) < 200) continue;
    console.log(`  task ${at(task.ts)} ${ms(task.dur ?? 0)} ms: ${inside(task)}`);
  }
}
