#!/bin/sh
# Quire's build-tool wrapper, in the spirit of ./gradlew: on a machine with only Node 20 and npm,
# it fetches Node 24 and pnpm 12 from the npm registry into ./.toolchain (once), installs the
# workspace, and runs a root script with them on PATH.
#
#   tooling/bootstrap.sh start        install, build, start Quire on the embedded database
#   tooling/bootstrap.sh install-cli [--prefix DIR]
#                                     build the CLI and put `quire` on the PATH: a shim in DIR/bin
#                                     (default ~/.local/bin) running it on this Node (tooling/scripts/install-cli.sh)
#   tooling/bootstrap.sh test         install and run every test (first, what the tests need from the
#                                     machine: tooling/scripts/test-prerequisites.sh)
#   tooling/bootstrap.sh <script> …   any root package.json script (admin, bench, …)
#   tooling/bootstrap.sh --env        print the PATH line to reuse the toolchain in a shell
set -eu

NODE_SPEC=${QUIRE_NODE_SPEC:-node@24}
PNPM_SPEC=${QUIRE_PNPM_SPEC:-pnpm@12.21.0}
root=$(cd "$(dirname "$0")/.." && pwd)
tc="$root/.toolchain"

log() { printf 'bootstrap: %s\n' "$*" >&2; }

# The tests' system packages (Chromium, a Secret Service) and services (PostgreSQL, Redis): installed
# and started when possible, else one message naming the command; before anything is fetched.
if [ "${1:-}" = "test" ]; then
  sh "$root/tooling/scripts/test-prerequisites.sh"
fi

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ -x "$tc/node/node_modules/.bin/node" ]; then
  PATH="$tc/node/node_modules/.bin:$PATH"
elif [ "$(node_major)" -lt 22 ]; then
  log "Node $(node -v 2>/dev/null || echo none) is too old; fetching $NODE_SPEC from the npm registry into .toolchain/node"
  npm install --prefix "$tc/node" --no-audit --no-fund --loglevel=error "$NODE_SPEC" >&2
  PATH="$tc/node/node_modules/.bin:$PATH"
fi

if [ -x "$tc/pnpm/node_modules/.bin/pnpm" ]; then
  PATH="$tc/pnpm/node_modules/.bin:$PATH"
elif ! pnpm --version 2>/dev/null | grep -q '^12\.'; then
  log "fetching $PNPM_SPEC from the npm registry into .toolchain/pnpm"
  npm install --prefix "$tc/pnpm" --no-audit --no-fund --loglevel=error "$PNPM_SPEC" >&2
  PATH="$tc/pnpm/node_modules/.bin:$PATH"
fi
export PATH
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

if [ "${1:-}" = "--env" ]; then
  printf 'export PATH="%s"\n' "$PATH"
  exit 0
fi

cd "$root"
log "node $(node -v), pnpm $(pnpm --version)"
if [ "${CI:-}" = "true" ]; then
  pnpm install --frozen-lockfile --reporter=append-only >&2
else
  pnpm install --reporter=append-only >&2
fi

[ $# -gt 0 ] || set -- start
exec pnpm --silent run "$@"
