/**
 * When a WebRTC offer or answer has the ICE candidates the PBX's media relay can use, so it can be sent without
 * waiting for the browser's whole gathering (issue 27 §5): Chromium gives its host UDP candidates within a few ms
 * and its TCP ones about 110 ms later; rtpengine speaks ICE over UDP only. With a STUN server a server-reflexive
 * candidate is awaited too, with a TURN server a relayed one. Used by the softphone (softphone/ice.ts) and by live
 * listening's answer (/users).
 */

/** What the rule reads of a candidate (RTCIceCandidate's fields): its kind and the m-section it was gathered for. */
export interface CandidateFacts {
  type: RTCIceCandidateType | null;
  protocol: RTCIceProtocol | null;
  section: number | null;
}

/** The facts of a gathered candidate. */
export const candidateFacts = (candidate: RTCIceCandidate): CandidateFacts => ({
  type: candidate.type,
  protocol: candidate.protocol,
  section: candidate.sdpMLineIndex,
});

/** Candidates that arrive in the same burst as the first sufficient one (other interfaces) still get in. */
export const ICE_SETTLE_MS = 15;

/**
 * The m-sections of a description that gather candidates of their own: each one not rejected (port 0), except
 * those bundled behind the first of their BUNDLE group, which share its transport. rtpengine's offer for live
 * listening has one unbundled section per party, and each needs a candidate of its own in the answer: a section
 * read before its first one came still says `c=IN IP4 0.0.0.0` and port 9, and rtpengine sends that party nothing
 * (ICE and DTLS connect, no packet arrives: measured; a loaded CI machine answered so once).
 */
export function gatheringSections(sdp: string | undefined): number[] {
  if (!sdp) return [0];
  const [session, ...media] = sdp.split(/\r?\nm=/);
  const group = /^a=group:BUNDLE (.*)$/m.exec(session)?.[1] ?? "";
  const bundledBehind = new Set(group.trim().split(/\s+/).filter(Boolean).slice(1));
  const sections = media.flatMap((section, index) => {
    const mid = /^a=mid:(\S+)/m.exec(section)?.[1];
    const rejected = /^\S+ 0 /.test(section);
    return rejected || (mid !== undefined && bundledBehind.has(mid)) ? [] : [index];
  });
  return sections.length > 0 ? sections : [0];
}

/**
 * Whether the candidates gathered so far are all the PBX can use, given the ICE servers the page has: in each
 * section of the local `description` that gathers its own (gatheringSections) a host UDP candidate, with a STUN
 * server a server-reflexive one too, with a TURN server a relayed one.
 */
export function candidatesSuffice(seen: CandidateFacts[], servers: RTCIceServer[], description?: string): boolean {
  const sections = gatheringSections(description);
  const urls = servers.flatMap((server) => (Array.isArray(server.urls) ? server.urls : [server.urls]));
  const wanted: RTCIceCandidateType[] = ["host"];
  if (urls.some((url) => /^stun:/i.test(url))) wanted.push("srflx");
  if (urls.some((url) => /^turns?:/i.test(url))) wanted.push("relay");
  const has = (section: number, type: RTCIceCandidateType) =>
    seen.some((c) => c.type === type && c.protocol === "udp" && (c.section ?? 0) === section);
  return sections.every((section) => wanted.every((type) => has(section, type)));
}

/**
 * Resolves once `pc`'s candidates suffice in each of its sections (and ICE_SETTLE_MS more), or its gathering
 * completes, or after `timeoutMs` (a STUN or TURN server that never answers).
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
      if (event.candidate) seen.push(candidateFacts(event.candidate));
      if (settling !== undefined || !candidatesSuffice(seen, servers, pc.localDescription?.sdp)) return;
      settling = setTimeout(done, ICE_SETTLE_MS);
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
