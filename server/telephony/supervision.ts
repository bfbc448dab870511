import type { EndedSession } from "../core/telephony/listening";
import type { RealtimeHub } from "../realtime/hub";

/**
 * The pages of sessions that ended without their admin's «Стоп» (the call ended, the admin's page went away):
 * the manager's page stops playing a whisper, and the admin's page (when `message`) says why it stopped.
 */
export async function tellSupervisionEnded(hub: RealtimeHub, ended: EndedSession[], message: string | null): Promise<void> {
  for (const session of ended) {
    if (session.kind === "whisper" && session.managerId !== null) await hub.tellUser(session.managerId, "whisperEnded", { sessionId: session.id });
    if (message && session.adminId !== null) await hub.tellUser(session.adminId, "listenEnded", { sessionId: session.id, message });
  }
}
