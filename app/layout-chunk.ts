/**
 * Decision 090, the slow link: the modules the layout draws with, and the ones both busy pages (the dashboard and
 * the lead panel) share, in one chunk.
 *
 * The compiler (esbuild) puts each module in the chunk of the exact set of entry points (routes, and modules
 * loaded with import()) that reach it: a module the layout and seven pages use and one the layout and three pages
 * use were two chunks, and the lead panel loaded some twenty of them, each a request with its 300 ms round trip
 * and ~400 bytes of headers on a slow link. Every route under the layout imports this module, and so does every
 * module loaded later that uses one of these (softphone.ts, ModalDialog): each of them is then reached by exactly
 * the same entry points, and they make one chunk. The imports below are for that alone (nothing is taken from
 * them here); a route still imports what it uses from the module itself.
 *
 * What belongs here: what the layout (routes/_app.tsx) draws or runs on every page, what both busy pages need, and
 * the lead panel's few small modules other pages share (a request each, for less than a kilobyte). Not a module
 * only some pages use (a dashboard table, a form's checks): it would be fetched on every page.
 */
import "./components/breaks/BreakToggle";
import "./components/calls/ClientHistory";
import "./components/layout/Footer";
import "./components/layout/Header";
import "./components/layout/LogoutForm";
import "./components/layout/PhoneMenu";
import "./components/layout/Sidebar";
import "./components/money/BalanceSlot";
import "./components/scripts/useScriptViewer";
import "./components/softphone/SoftphoneDock";
import "./components/softphone/SoftphoneProvider";
import "./components/softphone/TestCallButton";
import "./components/softphone/WhisperReceiver";
import "./components/ui/DoNotCallNotice";
import "./components/ui/Modal";
import "./components/ui/Toasts";
import "./components/ui/hydrated";
import "./lib/background-refresh";
import "./lib/color";
import "./lib/realtime";
import "./lib/softphone";
import "./lib/softphone/call-logged";
import "./lib/topic-redirect";
import "../common/callback-note";
import "../common/proxy-refusals";
