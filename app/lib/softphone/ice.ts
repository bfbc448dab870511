/**
 * When a call's offer has the ICE candidates it needs, so the INVITE leaves without waiting for the browser's whole
 * gathering (issue 27 §5, measured in bench/calls.ts). Chromium gives its host UDP candidates within a few ms of
 * the offer and its TCP ones about 110 ms later, and only then says "complete"; the PBX's media relay (rtpengine)
 * speaks ICE over UDP only, so those 110 ms were spent on every call for candidates nobody uses. With a STUN server
 * configured the offer also waits for a server-reflexive candidate, with a TURN server for a relayed one; the
 * handler's timeout (iceGatheringTimeout) still bounds the wait when a server never answers.
 */
import type { SessionDescriptionHandlerFactory, UserAgent } from "sip.js";
import { Web } from "sip.js";
import { type CandidateFacts, candidateFacts, candidatesSuffice, ICE_SETTLE_MS } from "../ice-candidates";

/** sip.js's handler, ending the wait for ICE as soon as `candidatesSuffice` (sip.js documents this extension point). */
class PromptOfferHandler extends Web.SessionDescriptionHandler {
  private candidates: CandidateFacts[] = [];
  private settling: ReturnType<typeof setTimeout> | undefined;

  constructor(
    logger: ReturnType<UserAgent["getLogger"]>,
    mediaStreamFactory: Web.MediaStreamFactory,
    configuration: Web.SessionDescriptionHandlerConfiguration,
    private readonly servers: RTCIceServer[],
  ) {
    super(logger, mediaStreamFactory, configuration);
    this.peerConnectionDelegate = {
      onicecandidate: (event) => {
        if (!event.candidate) return;
        this.candidates.push(candidateFacts(event.candidate));
        this.settleWhenSufficient();
      },
    };
  }

  protected waitForIceGatheringComplete(restart = false, timeout = 0): Promise<void> {
    if (restart) this.candidates = [];
    const waiting = super.waitForIceGatheringComplete(restart, timeout);
    this.settleWhenSufficient();
    return waiting;
  }

  close(): void {
    clearTimeout(this.settling);
    super.close();
  }

  private settleWhenSufficient() {
    const description = this.peerConnection?.localDescription?.sdp;
    if (this.settling !== undefined || !candidatesSuffice(this.candidates, this.servers, description)) return;
    this.settling = setTimeout(() => {
      this.settling = undefined;
      this.iceGatheringComplete();
    }, ICE_SETTLE_MS);
  }
}

/** The softphone's handler factory: sip.js's default one, with the prompt offer above. */
export function promptOfferFactory(servers: RTCIceServer[], iceGatheringTimeout: number): SessionDescriptionHandlerFactory {
  const mediaStreamFactory = Web.defaultMediaStreamFactory();
  return (session) =>
    new PromptOfferHandler(
      session.userAgent.getLogger("sip.SessionDescriptionHandler"),
      mediaStreamFactory,
      { iceGatheringTimeout, peerConnectionConfiguration: { ...Web.defaultPeerConnectionConfiguration(), iceServers: servers } },
      servers,
    );
}
