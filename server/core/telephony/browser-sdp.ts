import { badRequest } from "../errors";

/**
 * What a browser may hand rtpengine (issue 39): its answer to rtpengine's offer of a call's audio (listening, the
 * whisper's manager), or its offer of the admin's microphone (whisper). rtpengine takes what it is given: a plain
 * RTP/AVP answer with a chosen `c=` address made it send both parties' audio unencrypted there. So only WebRTC's
 * own shape passes: every section audio over DTLS-SRTP (UDP/TLS/RTP/SAVPF), a certificate fingerprint, a DTLS role
 * (a=setup), ICE credentials, and no media address but one ICE may find (0.0.0.0, or a candidate's own address):
 * rtpengine then sends only where the browser's ICE checks, which carry the credentials, came from.
 */
export function checkBrowserSdp(sdp: string, role: "answer" | "offer"): void {
  const what = role === "answer" ? "Ответ браузера отклонён" : "Предложение браузера отклонено";
  const refuse = (why: string) => {
    throw badRequest(`${what}: ${why}`);
  };
  const lines = sdp
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const firstMedia = lines.findIndex((line) => line.startsWith("m="));
  if (!lines[0]?.startsWith("v=0") || firstMedia < 0) refuse("это не описание сеанса SDP со звуком");
  const session = lines.slice(0, firstMedia);
  const sections: string[][] = [];
  for (const line of lines.slice(firstMedia)) {
    if (line.startsWith("m=")) sections.push([line]);
    else sections[sections.length - 1].push(line);
  }
  const has = (section: string[], pattern: RegExp) => section.some((line) => pattern.test(line)) || session.some((line) => pattern.test(line));
  const candidateAddresses = new Set(
    lines
      .filter((line) => line.startsWith("a=candidate:"))
      .map((line) => line.split(/\s+/)[4]?.toLowerCase())
      .filter(Boolean),
  );
  const mayBeAddress = (address: string | undefined) =>
    !!address && (/^(0\.0\.0\.0|::)$/.test(address) || candidateAddresses.has(address.toLowerCase()));

  for (const section of sections) {
    if (!/^m=audio \d+ UDP\/TLS\/RTP\/SAVPF( \d+)+$/.test(section[0])) refuse("звук принимается только по DTLS-SRTP (UDP/TLS/RTP/SAVPF)");
    if (!has(section, /^a=fingerprint:(sha-1|sha-224|sha-256|sha-384|sha-512) [0-9A-F]{2}(:[0-9A-F]{2})+$/i))
      refuse("нет отпечатка сертификата DTLS (a=fingerprint)");
    const setup = role === "answer" ? /^a=setup:(active|passive)$/ : /^a=setup:(actpass|active|passive)$/;
    if (!has(section, setup)) refuse("нет роли DTLS (a=setup)");
    if (!has(section, /^a=ice-ufrag:\S{4,}$/) || !has(section, /^a=ice-pwd:\S{22,}$/)) refuse("нет данных ICE (a=ice-ufrag, a=ice-pwd)");
    if (section.some((line) => /^a=crypto:/.test(line))) refuse("ключи SDES (a=crypto) не принимаются");
  }
  // Every media address: the connection lines, and an RTCP address if one is named.
  for (const line of lines) {
    const connection = /^c=IN IP[46] (\S+)$/.exec(line);
    if (line.startsWith("c=") && !connection) refuse("неверная строка адреса (c=)");
    if (connection && !mayBeAddress(connection[1])) refuse("адрес звука не из кандидатов ICE");
    const rtcp = /^a=rtcp:\d+(?: IN IP[46] (\S+))?$/.exec(line);
    if (rtcp?.[1] && !mayBeAddress(rtcp[1])) refuse("адрес звука не из кандидатов ICE");
  }
}
