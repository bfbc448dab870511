#!/usr/bin/env bash
# Makes sure the Debian packages listed in test/system-packages.txt are installed before any test runs.
# As root with apt-get it installs what is missing and says so in one line; otherwise it stops with the one
# command to run. SYSTEM_PACKAGES names another list (the script's own test uses it).
set -euo pipefail
list="${SYSTEM_PACKAGES:-$(dirname "$0")/system-packages.txt}"
[[ "${SKIP_SYSTEM_PACKAGES:-}" == 1 ]] && exit 0

packages=()
services=()
while read -r name flag _; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  packages+=("$name")
  [[ "$flag" == service ]] && services+=("$name")
done < <(sed 's/#.*//' "$list")

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "The tests drive these Debian packages: ${packages[*]}. This system has no dpkg; install their equivalents" >&2
  echo "and set SKIP_SYSTEM_PACKAGES=1 to skip this check." >&2
  exit 1
fi

missing=()
for name in "${packages[@]}"; do
  [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$name" 2>/dev/null)" == "ii "* ]] || missing+=("$name")
done
((${#missing[@]})) || exit 0

if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "The tests need Debian packages that are not installed: ${missing[*]}. Run this once, then the tests again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "Installing the Debian packages the tests drive: ${missing[*]} (apt-get, once)"
# Debian's policy hook: a package's service does not start on install (invoke-rc.d and deb-systemd-invoke ask it).
policy=/usr/sbin/policy-rc.d
own_policy=
if [[ ! -e "$policy" ]]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && own_policy=1
fi
log="$(mktemp)"
cleanup() { [[ -n "$own_policy" ]] && rm -f "$policy"; rm -f "$log"; }
trap cleanup EXIT
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "apt-get could not install: ${missing[*]}" >&2
  exit 1
fi
# A service the script installed stays off: the suite runs its own instance on a free port.
for name in "${services[@]}"; do
  [[ " ${missing[*]} " == *" $name "* ]] || continue
  if [[ -d /run/systemd/system ]]; then
    systemctl disable --now "$name" >/dev/null 2>&1 || true
  else
    service "$name" stop >/dev/null 2>&1 || true
  fi
done
