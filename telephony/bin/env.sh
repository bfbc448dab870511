# Reads and checks the telephony settings (telephony/env.example documents each). Sourced by the run scripts.
set -euo pipefail
fail() { echo "telephony: $*" >&2; exit 64; }
: "${SIP_DOMAIN:=}"
: "${TELEPHONY_IP:=127.0.0.1}"
: "${TELEPHONY_PUBLIC_IP:=}"
: "${KAMAILIO_SIP_PORT:=5060}"
: "${KAMAILIO_WS_PORT:=8080}"
: "${KAMAILIO_WSS_PORT:=8443}"
: "${KAMAILIO_TLS_CERT:=}"
: "${KAMAILIO_TLS_KEY:=}"
: "${RTP_PORT_MIN:=30000}"
: "${RTP_PORT_MAX:=40000}"
: "${RTPENGINE_NG_PORT:=22222}"
: "${APP_URL:=http://127.0.0.1:3000}"
: "${TRUNK_HOST:=}"
: "${TRUNK_LOGIN:=}"
: "${TRUNK_PASSWORD:=}"
: "${TRUNK_CALLER_ID:=}"
: "${TRUNK_DIDS:=}"
: "${CALL_RING_TIMEOUT:=60}"
: "${TRUNK_CODECS:=PCMA,PCMU}"
: "${RECORDINGS_DIR:=}"
: "${RTPENGINE_NG_GATE:=}"
: "${RTPENGINE_NG_SECRET:=}"
[[ "$TELEPHONY_IP" != 0.0.0.0 ]] || fail "TELEPHONY_IP must be this host's own address, not 0.0.0.0"
[[ "$TELEPHONY_IP" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "TELEPHONY_IP must be an IPv4 address (the stack listens on IPv4 only), not '$TELEPHONY_IP'"
# The INVITE to the carrier must fit one UDP datagram (RFC 3261 §18.1.1: at most 1,300 bytes; issue 42 asks for
# under 1,200 at worst, decision 087):
# SIP_DOMAIN is in its From, To and P-Asserted-Identity, TRUNK_LOGIN in its credentials.
[[ ${#SIP_DOMAIN} -le 32 ]] || fail "SIP_DOMAIN must be at most 32 characters (it is in every INVITE to the carrier, which must fit one UDP datagram), not ${#SIP_DOMAIN}"
[[ ${#TRUNK_LOGIN} -le 32 ]] || fail "TRUNK_LOGIN must be at most 32 characters (it is in every INVITE to the carrier, which must fit one UDP datagram), not ${#TRUNK_LOGIN}"
[[ "$CALL_RING_TIMEOUT" =~ ^[0-9]+$ && "$CALL_RING_TIMEOUT" -ge 5 ]] || fail "CALL_RING_TIMEOUT must be a number of seconds, at least 5"
[[ -z "$TRUNK_DIDS" || "$TRUNK_DIDS" =~ ^\+?[0-9]+=[0-9A-Za-z_.-]+(,\+?[0-9]+=[0-9A-Za-z_.-]+)*$ ]] \
  || fail "TRUNK_DIDS must be number=extension pairs separated by commas (380441234567=9001,380441234568=9002), not '$TRUNK_DIDS'"
[[ "$TRUNK_CODECS" =~ ^(PCMA|PCMU|G722)(,(PCMA|PCMU|G722))*$ ]] \
  || fail "TRUNK_CODECS must be codecs carriers speak, separated by commas (PCMA,PCMU), not '$TRUNK_CODECS'"
# The gate to rtpengine's control port (decision 066): an address app hosts reach, and a secret only they know.
if [[ -n "$RTPENGINE_NG_GATE" ]]; then
  [[ "$RTPENGINE_NG_GATE" =~ ^(\[[0-9A-Fa-f:.]+\]|[0-9.]+):([0-9]+)$ ]] \
    || fail "RTPENGINE_NG_GATE must be an address and a port (10.0.0.5:22223), not '$RTPENGINE_NG_GATE'"
  [[ "${BASH_REMATCH[1]}" != 0.0.0.0 && "${BASH_REMATCH[1]}" != "[::]" ]] \
    || fail "RTPENGINE_NG_GATE must be an address of this host on the network the app hosts share with it, not ${BASH_REMATCH[1]}"
  [[ ${#RTPENGINE_NG_SECRET} -ge 32 ]] || fail "RTPENGINE_NG_SECRET must be at least 32 characters (openssl rand -hex 32) when RTPENGINE_NG_GATE is set"
fi
for port in KAMAILIO_SIP_PORT KAMAILIO_WS_PORT KAMAILIO_WSS_PORT RTP_PORT_MIN RTP_PORT_MAX RTPENGINE_NG_PORT; do
  [[ "${!port}" =~ ^[0-9]+$ ]] || fail "$port must be a port number, not '${!port}'"
done
# Values that end up inside quoted Kamailio strings: no quotes, backslashes or line breaks.
for name in SIP_DOMAIN SIP_AUTH_SECRET APP_URL TRUNK_HOST TRUNK_LOGIN TRUNK_PASSWORD TRUNK_CALLER_ID KAMAILIO_TLS_CERT KAMAILIO_TLS_KEY; do
  value="${!name:-}"
  [[ "$value" != *[\"\\$'\n']* ]] || fail "$name must not contain quotes, backslashes or line breaks"
done
