/**
 * When a WebRTC offer or answer has the ICE candidates the PBX's media relay can use, so it can be sent without
 * waiting for the browser's whole gathering (issue 27 §5): Chromium gives its host UDP candidates within a few ms
 * and its TCP ones about 110 ms later; rtpengine speaks ICE over UDP only. With a STUN server a server-reflexive
 * candidate is awaited too, with a TURN server a relayed one. Used by the softphone (softphone/ice.ts) and by live
 * listening's answer (/users).
 */

/** What the rule reads of a candidate (RTCIceCandidate's fields). */
export interface CandidateFacts {
  type: RTCIceCandidateType | null;
  protocol: RTCIceProtocol | null;
}

/** Candidates that arrive in the same burst as the first sufficient one (other interfaces) still get in. */
export const ICE_SETTLE_MS = 15;

/** Whether the candidates gathered so far are all the PBX can use, given the ICE servers the page has. */
export function candidatesSuffice(seen: CandidateFacts[], servers: RTCIceServer[]): boolean {
  const urls = servers.flatMap((server) => (Array.isArray(server.urls) ? server.urls : [server.urls]));
  const has = (type: RTCIceCandidateType) => seen.some((c) => c.type === type && c.protocol === "udp");
  if (!has("host")) return false;
  if (urls.some((url) => /^stun:/i.test(url)) && !has("srflx")) return false;
  if (urls.some((url) => /^turns?:/i.test(url)) && !has("relay")) return false;
  return true;
}

/**
 * Resolves once `pc`'s candidates suffice (and ICE_SETTLE_MS more), or its gathering completes, or after
 * `timeoutMs` (a STUN or TURN server that never answers).
 */
export function candidatesGathered(pc: RTCPeerConnection, servers: RTCIceServer[], timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const seen: CandidateFacts[] = [];
    let settling: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(settling);
      clearTimeout(timeout);
      pc.removeEventListener("icecandidate", onCandidate);
      pc.removeEventListener("icegatheringstatechange", onState);
      resolve();
    };
    const onCandidate = (event: RTCPeerConnectionIceEvent) => {
      if (event.candidate) seen.push({ type: event.candidate.type, protocol: event.candidate.protocol });
      if (settling === undefined && candidatesSuffice(seen, servers)) settling = setTimeout(done, ICE_SETTLE_MS);
    };
    const onState = () => {
      if (pc.iceGatheringState === "complete") done();
    };
    const timeout = setTimeout(done, timeoutMs);
    pc.addEventListener("icecandidate", onCandidate);
    pc.addEventListener("icegatheringstatechange", onState);
    onState();
  });
}
