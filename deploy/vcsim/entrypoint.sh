#!/bin/sh
# Entry point of the simulated vCenter's image: on first start, generates vcsim's TLS key and a certificate for the
# names in VCSIM_TLS_NAMES (the compose service name) into VCSIM_TLS_DIR, a volume the vCenter collector mounts
# read-only and trusts as vcenter.ca-file. Then runs vcsim with them: the collector verifies the chain and the name,
# as it does against a real vCenter; nothing is pinned by hand and nothing is insecure.
set -eu
dir="${VCSIM_TLS_DIR:-/tls}"
names="${VCSIM_TLS_NAMES:-vcsim}"
if [ ! -s "$dir/vcsim.pem" ]; then
  san=$(printf '%s' "$names" | sed 's/[^,][^,]*/DNS:&/g')
  umask 077
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 825 \
    -subj "/CN=${names%%,*}" -addext "subjectAltName=$san" \
    -keyout "$dir/vcsim.key" -out "$dir/vcsim.pem.new" 2>/dev/null
  chmod 644 "$dir/vcsim.pem.new"
  mv "$dir/vcsim.pem.new" "$dir/vcsim.pem"
  echo "vcsim: generated a certificate for $names in $dir/vcsim.pem" >&2
fi
exec "${VCSIM:-vcsim}" -l "${VCSIM_LISTEN:-0.0.0.0:8989}" -tlscert "$dir/vcsim.pem" -tlskey "$dir/vcsim.key" "$@"
