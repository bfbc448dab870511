/** What the softphone needs to register: from the root loader's public settings and the session user. */
export interface SoftphoneConfig {
  /** The WebSocket the SIP traffic goes over, e.g. wss://pbx.example.com:443/ws. */
  wsUrl: string;
  /** The SIP domain: the user is sip:<sipLogin>@<domain>, a number is dialled as sip:<number>@<domain>. */
  domain: string;
  sipLogin: string;
  sipPassword: string;
}

export interface SoftphoneSettings {
  sipWsUrl: string;
  sipDomain: string;
}

export interface SipCredentials {
  sipLogin: string;
  sipPassword: string;
}

/**
 * The softphone's configuration, or null when there is nothing to register with: the user has no SIP login or
 * password, or neither SIP_WS_URL nor SIP_DOMAIN is set. SPEC §7 gives the default form of the socket,
 * `wss://<softphone domain>:443/ws`; an explicit SIP_WS_URL wins, and without SIP_DOMAIN the socket's host is
 * the domain.
 */
export function softphoneConfig(settings: SoftphoneSettings, user: SipCredentials): SoftphoneConfig | null {
  const sipLogin = user.sipLogin.trim();
  const sipPassword = user.sipPassword;
  if (!sipLogin || !sipPassword) return null;
  let domain = settings.sipDomain.trim();
  let wsUrl = settings.sipWsUrl.trim();
  if (!wsUrl && domain) wsUrl = `wss://${domain}:443/ws`;
  if (!wsUrl) return null;
  let parsed: URL;
  try {
    parsed = new URL(wsUrl);
  } catch {
    return null;
  }
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") return null;
  if (!domain) domain = parsed.hostname;
  return { wsUrl, domain, sipLogin, sipPassword };
}

/**
 * SPEC /webPhone: the external web-phone page with a timestamp query parameter (`t`, epoch milliseconds), so the
 * browser never shows a cached copy. Null when WEBPHONE_URL is unset or not an http(s) address.
 */
export function webPhoneRedirectUrl(webPhoneUrl: string, now: Date): string | null {
  const raw = webPhoneUrl.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  url.searchParams.set("t", String(now.getTime()));
  return url.toString();
}
