#!/bin/sh
# Puts `quire` on the PATH from this checkout: writes a small shim, $PREFIX/bin/quire
# (PREFIX: --prefix DIR, else $PREFIX, else ~/.local), that runs packages/cli/dist/bin.js with the
# Node running this script. The CLI needs Node 22+, and on a machine whose system Node is older
# (Node 24 only in ./.toolchain) `#!/usr/bin/env node` would find the old one; the shim names its
# Node by path instead. Run it through `tooling/bootstrap.sh install-cli`, which builds the CLI
# first with the toolchain's Node on PATH. Running it again replaces the shim.
set -eu

prefix=${PREFIX:-${HOME:?HOME is not set}/.local}
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "install-cli: --prefix needs a directory" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    *) echo "install-cli: unknown argument $1 (usage: install-cli [--prefix DIR])" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/packages/cli/dist/bin.js"
if [ ! -f "$bin" ]; then
  echo "install-cli: no built CLI at $bin; run \`tooling/bootstrap.sh install-cli\` (it builds first)." >&2
  exit 1
fi
node_bin=$(node -p 'process.execPath' 2>/dev/null) || { echo "install-cli: no node on PATH; run \`tooling/bootstrap.sh install-cli\`." >&2; exit 1; }
if ! "$node_bin" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)'; then
  echo "install-cli: $node_bin is Node $("$node_bin" -v); quire needs 22 or later: run \`tooling/bootstrap.sh install-cli\`." >&2
  exit 1
fi

# A word for sh, in single quotes (a quote inside becomes '\'').
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

mkdir -p "$prefix/bin"
bindir=$(cd "$prefix/bin" && pwd)
shim="$bindir/quire"
tmp="$shim.tmp.$$"
trap 'rm -f "$tmp"' EXIT
{
  echo '#!/bin/sh'
  echo "# quire from $root (tooling/bootstrap.sh install-cli), on the Node that installed it."
  echo "exec $(quote "$node_bin") $(quote "$bin") \"\$@\""
} >"$tmp"
chmod 755 "$tmp"
mv -f "$tmp" "$shim"

echo "Installed $shim: runs $bin with Node $("$node_bin" -v) ($node_bin)."
case ":${PATH:-}:" in
  *":$bindir:"*) echo "$bindir is on your PATH: run \`quire --help\`." ;;
  *) echo "$bindir is not on your PATH: add it (e.g. \`export PATH=\"$bindir:\$PATH\"\` in your shell's profile), or run $shim." ;;
esac
