#!/usr/bin/env bash
# THE test command: unit tests (*Test, no network) and integration tests (*IT, real servers).
# Installs the Debian packages of the real peers the ITs use when they are missing and it can, then runs
# `mvn -B verify`. Extra arguments go to Maven (e.g. ./test.sh -pl model).
# STUNWATCH_STRICT=1 (as in CI): an IT whose real peer is missing fails instead of being skipped.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

strict="${STUNWATCH_STRICT:-0}"
missing=()
# kcat: the real Kafka CLI client (Debian package kafkacat installs both names).
command -v kcat >/dev/null 2>&1 || command -v kafkacat >/dev/null 2>&1 || missing+=(kafkacat)
# prometheus and promtool: the real Prometheus that scrapes the API in ObservabilityIT, and the rule checker.
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
# amtool: checks the Alertmanager configuration that docker-compose.yml renders (DeploymentFilesIT).
command -v amtool >/dev/null 2>&1 || missing+=(prometheus-alertmanager)
# openssl: makes the simulated vCenter's certificate, as its image does (deploy/vcsim/entrypoint.sh).
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# systemd-analyze: rates the worker unit's hardening (DeploymentFilesIT).
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
# vcsim: govmomi's vCenter simulator, built from Debian's Go and govmomi sources (test-support/vcsim/build.sh).
command -v go >/dev/null 2>&1 || missing+=(golang-go)
[ -d /usr/share/gocode/src/github.com/vmware/govmomi ] || missing+=(golang-github-vmware-govmomi-dev)
# sshd: Debian's OpenSSH server plays ESXi hosts on loopback ports for `collect hosts` (HostsCollectorIT).
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
# chromium: the real browser the console's tests drive, headless, over its DevTools protocol (ConsoleIT).
command -v chromium >/dev/null 2>&1 || missing+=(chromium)

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo -n"
  if command -v apt-get >/dev/null 2>&1 && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
    echo "test.sh: installing ${missing[*]} ..."
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "test.sh: cannot install ${missing[*]} here (no apt-get or no root);" \
      "the ITs that need them will $([ "$strict" = 1 ] && echo FAIL || echo be skipped)." >&2
  fi
fi

if command -v go >/dev/null 2>&1 && [ -d /usr/share/gocode/src/github.com/vmware/govmomi ]; then
  bash test-support/vcsim/build.sh
fi

export STUNWATCH_STRICT="$strict"
exec mvn -B verify "$@"
