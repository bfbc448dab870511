import { describe, expect, it } from "vitest";
import { candidatesSuffice, type CandidateFacts } from "../../app/lib/ice-candidates";

const host: CandidateFacts = { type: "host", protocol: "udp" };
const hostTcp: CandidateFacts = { type: "host", protocol: "tcp" };
const srflx: CandidateFacts = { type: "srflx", protocol: "udp" };
const relay: CandidateFacts = { type: "relay", protocol: "udp" };

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
