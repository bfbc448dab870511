import { describe, expect, it } from "vitest";
import { candidatesSuffice, gatheringSections, type CandidateFacts } from "../../app/lib/ice-candidates";

const host: CandidateFacts = { type: "host", protocol: "udp", section: 0 };
const hostTcp: CandidateFacts = { type: "host", protocol: "tcp", section: 0 };
const srflx: CandidateFacts = { type: "srflx", protocol: "udp", section: 0 };
const relay: CandidateFacts = { type: "relay", protocol: "udp", section: 0 };

describe("an offer's ICE candidates are enough for the PBX (the INVITE leaves without waiting for TCP ones)", () => {
  it("without ICE servers: as soon as a host UDP candidate is in; a TCP one alone is not enough", () => {
    expect(candidatesSuffice([], [])).toBe(false);
    expect(candidatesSuffice([hostTcp], [])).toBe(false);
    expect(candidatesSuffice([host], [])).toBe(true);
  });

  it("with a STUN server: waits for the server-reflexive candidate", () => {
    const stun = [{ urls: "stun:stun.example.org:3478" }];
    expect(candidatesSuffice([host], stun)).toBe(false);
    expect(candidatesSuffice([host, srflx], stun)).toBe(true);
  });

  it("with a TURN server (one of several URLs): waits for the relayed candidate", () => {
    const turn = [{ urls: ["turns:turn.example.org:443?transport=tcp"], username: "u", credential: "p" }];
    expect(candidatesSuffice([host, srflx], turn)).toBe(false);
    expect(candidatesSuffice([host, relay], turn)).toBe(true);
  });
});

const sdp = (...lines: string[]) => [...lines, ""].join("\r\n");
/** An answer to rtpengine's live-listening offer: one unbundled receive-only section per party. */
const listeningAnswer = sdp(
  "v=0",
  "o=- 1 2 IN IP4 127.0.0.1",
  "s=-",
  "t=0 0",
  "m=audio 9 UDP/TLS/RTP/SAVPF 0",
  "c=IN IP4 0.0.0.0",
  "a=mid:0",
  "a=recvonly",
  "m=audio 9 UDP/TLS/RTP/SAVPF 0",
  "c=IN IP4 0.0.0.0",
  "a=mid:1",
  "a=recvonly",
);
/** An offer with audio and video bundled on one transport, and a rejected third section. */
const bundledOffer = sdp(
  "v=0",
  "o=- 1 2 IN IP4 127.0.0.1",
  "s=-",
  "t=0 0",
  "a=group:BUNDLE 0 1",
  "m=audio 9 UDP/TLS/RTP/SAVPF 111",
  "a=mid:0",
  "m=video 9 UDP/TLS/RTP/SAVPF 96",
  "a=mid:1",
  "m=application 0 UDP/DTLS/SCTP webrtc-datachannel",
  "a=mid:2",
);

describe("an answer with a section per party has a candidate in each (live listening on a loaded machine)", () => {
  it("counts each unbundled section, and of a BUNDLE group its first only; a rejected section gathers nothing", () => {
    expect(gatheringSections(listeningAnswer)).toEqual([0, 1]);
    expect(gatheringSections(bundledOffer)).toEqual([0]);
    expect(gatheringSections(undefined)).toEqual([0]);
  });

  it("waits for a host UDP candidate in the second party's section too", () => {
    expect(candidatesSuffice([host], [], listeningAnswer)).toBe(false);
    expect(candidatesSuffice([host, { ...hostTcp, section: 1 }], [], listeningAnswer)).toBe(false);
    expect(candidatesSuffice([host, { ...host, section: 1 }], [], listeningAnswer)).toBe(true);
  });
});
