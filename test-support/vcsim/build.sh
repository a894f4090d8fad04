#!/usr/bin/env bash
# Builds the vcsim binary the ITs use, from Debian's golang-go and golang-github-vmware-govmomi-dev (no network).
# Output: test-support/target/vcsim. Rebuilt only when main.go is newer.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/../target/vcsim"
if [ -x "$out" ] && [ "$out" -nt "$here/main.go" ]; then exit 0; fi
mkdir -p "$(dirname "$out")"
cd "$here"
GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS=-mod=mod GOCACHE="${GOCACHE:-/tmp/stunwatch-gocache}" \
  go build -o "$out" main.go
echo "built $out"
