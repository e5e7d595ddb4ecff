#!/bin/sh
# What the tests need from the machine, beyond Node and pnpm: `tooling/bootstrap.sh test` (the
# README's test line) runs this first, before it fetches or installs anything.
#
#   - headless Chromium at /usr/bin/chromium (Debian's `chromium`; playwright-core drives it, no
#     browser is ever downloaded);
#   - a Secret Service the CLI's keyring tests start in a private D-Bus session: gnome-keyring-daemon,
#     dbus-run-session, dbus-send, secret-tool (Debian's `gnome-keyring dbus dbus-x11 libsecret-tools`);
#   - PostgreSQL answering at QUIRE_TEST_PG_URL, by default postgres://postgres@127.0.0.1:5432/postgres
#     (a superuser without a password: the tests create and drop databases);
#   - Redis answering at QUIRE_TEST_REDIS_URL, by default redis://127.0.0.1:6379;
#   - zsh and fish, which the CLI's completion tests drive (bash is there already);
#   - HAProxy and PgBouncer (Debian's `haproxy pgbouncer`), which the scale-out topology test
#     (tooling/test/topology.test.ts) runs in the foreground on free ports of its own. Debian's
#     packages may start their system services (PgBouncer on 6432, HAProxy with its stock
#     configuration); nothing here uses those, and the test's instances never clash with them (other
#     ports, no Unix socket).
#
# What is missing is installed with apt-get (one `apt-get install`; the package lists are refreshed
# only when the install fails without them), and the local PostgreSQL and Redis are started when
# they are down, when this can be done: as root, or with sudo that needs no password. Otherwise it
# stops at once with one message naming the command to run, and exit status 2. A PostgreSQL or
# Redis named by QUIRE_TEST_PG_URL / QUIRE_TEST_REDIS_URL is never started here, only checked.
set -u

chromium=/usr/bin/chromium
pg_url=${QUIRE_TEST_PG_URL:-}
redis_url=${QUIRE_TEST_REDIS_URL:-}

say() { printf 'test-prerequisites: %s\n' "$*" >&2; }
has() { command -v "$1" >/dev/null 2>&1; }

packages=''
add() {
  for p in "$@"; do
    case " $packages " in *" $p "*) ;; *) packages="${packages:+$packages }$p" ;; esac
  done
}

pg_up() {
  if [ -n "$pg_url" ]; then pg_isready -q -t 3 -d "$pg_url" </dev/null >/dev/null 2>&1
  else pg_isready -q -t 3 -h 127.0.0.1 -p 5432 </dev/null >/dev/null 2>&1; fi
}
redis_up() {
  if [ -n "$redis_url" ]; then timeout 5 redis-cli -u "$redis_url" ping </dev/null 2>/dev/null | grep -q PONG
  else timeout 5 redis-cli -h 127.0.0.1 -p 6379 ping </dev/null 2>/dev/null | grep -q PONG; fi
}
# The tests connect as a superuser without a password prompt; pg_isready does not check that.
pg_login() {
  has psql || return 0
  url=${pg_url:-postgres://postgres@127.0.0.1:5432/postgres}
  error=$(PGCONNECT_TIMEOUT=5 psql -w -Atqc 'select 1' "$url" </dev/null 2>&1 >/dev/null) && return 0
  say "PostgreSQL answers, but the tests cannot connect as $url: $error
  They need a superuser without a password prompt: set QUIRE_TEST_PG_URL to one (the password in the URL), or allow it locally (\`host all all 127.0.0.1/32 trust\` in pg_hba.conf, on a machine of your own)."
  exit 1
}
# The local cluster on port 5432 (Debian's postgresql-common), as "VERSION NAME".
pg_cluster() { pg_lsclusters -h 2>/dev/null | awk '$3 == 5432 { print $1, $2; exit }'; }

# --- What is missing -----------------------------------------------------------------------------
[ -x "$chromium" ] || add chromium
for tool in gnome-keyring-daemon dbus-run-session dbus-send secret-tool; do
  has "$tool" || add gnome-keyring dbus dbus-x11 libsecret-tools
done
has pg_isready || add postgresql-client
has redis-cli || add redis-tools
has zsh || add zsh
has fish || add fish
# In /usr/sbin, which a user's PATH may leave out (QUIRE_PREREQ_SBIN: another directory, for its test).
has_sbin() { has "$1" || [ -x "${QUIRE_PREREQ_SBIN:-/usr/sbin}/$1" ]; }
has_sbin haproxy || add haproxy
has_sbin pgbouncer || add pgbouncer

start_pg=''
if has pg_isready && pg_up; then pg_login
elif [ -n "$pg_url" ]; then
  has pg_isready && { say "PostgreSQL does not answer at QUIRE_TEST_PG_URL ($pg_url): start it, or unset QUIRE_TEST_PG_URL to use the local one on 127.0.0.1:5432."; exit 1; }
elif [ -n "$(pg_cluster)" ]; then start_pg=$(pg_cluster)
else add postgresql # Debian creates and starts the cluster `main` on 5432; started below if not.
fi

start_redis=''
if has redis-cli && redis_up; then :
elif [ -n "$redis_url" ]; then
  has redis-cli && { say "Redis does not answer at QUIRE_TEST_REDIS_URL ($redis_url): start it, or unset QUIRE_TEST_REDIS_URL to use the local one on 127.0.0.1:6379."; exit 1; }
else
  start_redis=yes
  has redis-server || add redis-server
fi

[ -n "$packages$start_pg$start_redis" ] || exit 0

# --- Who may fix it ------------------------------------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then as_root=''
elif has sudo && sudo -n true </dev/null >/dev/null 2>&1; then as_root='sudo -n'
else as_root=none
fi

# Packages and PostgreSQL need root; any user can start a Redis on 127.0.0.1:6379.
if { [ -n "$packages" ] || [ -n "$start_pg" ]; } && { [ "$as_root" = none ] || { [ -n "$packages" ] && ! has apt-get; }; }; then
  sudo=''
  [ "$(id -u)" -eq 0 ] || sudo='sudo '
  missing=''
  [ -z "$packages" ] || missing="the packages $packages"
  [ -z "$start_pg" ] || missing="${missing:+$missing, and }PostgreSQL (cluster $start_pg is down)"
  command=''
  [ -z "$packages" ] || command="${sudo}apt-get install -y $packages"
  [ -z "$start_pg" ] || command="${command:+$command && }${sudo}pg_ctlcluster --skip-systemctl-redirect $start_pg start"
  if [ -n "$packages" ] && ! has apt-get; then
    how="there is no apt-get here: install what Debian calls"
  else
    how="installing and starting them needs root or sudo without a password. Run"
  fi
  say "the tests need $missing; $how:
    $command
and then the test line again."
  exit 2
fi

# --- Fix it --------------------------------------------------------------------------------------
# ($as_root and $packages are word lists: unquoted on purpose.)
apt() { $as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=300 "$@" </dev/null >&2; }
if [ -n "$packages" ]; then
  say "installing $packages (apt-get)"
  if ! apt install -y $packages; then
    say "the install failed; refreshing the package lists (apt-get update) and trying again"
    apt update && apt install -y $packages || { say "apt-get install -y $packages failed (above)."; exit 1; }
  fi
  # A fresh postgresql package may leave its new cluster down.
  if [ -z "$start_pg" ] && [ -z "$pg_url" ] && ! pg_up; then start_pg=$(pg_cluster); fi
fi

wait_for() {
  i=0
  while [ $i -lt 30 ]; do "$1" && return 0; i=$((i + 1)); sleep 1; done
  return 1
}

if [ -n "$start_pg" ] && ! pg_up; then
  say "starting PostgreSQL ($start_pg on 127.0.0.1:5432)"
  $as_root pg_ctlcluster --skip-systemctl-redirect $start_pg start </dev/null >&2 || true
  wait_for pg_up || { say "PostgreSQL did not start (pg_ctlcluster $start_pg start; see its log)."; exit 1; }
  pg_login
elif [ -z "$pg_url" ] && ! pg_up; then
  say "PostgreSQL does not answer on 127.0.0.1:5432 and there is no cluster to start: create one, or set QUIRE_TEST_PG_URL."
  exit 1
fi

if [ -n "$start_redis" ] && ! redis_up; then
  say "starting Redis (127.0.0.1:6379, nothing saved to disk)"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no </dev/null >&2 || true
  wait_for redis_up || { say "Redis did not start on 127.0.0.1:6379."; exit 1; }
fi

# What the install could not give.
if [ -n "$pg_url" ]; then pg_up || { say "PostgreSQL does not answer at QUIRE_TEST_PG_URL ($pg_url)."; exit 1; }; pg_login; fi
if [ -n "$redis_url" ] && ! redis_up; then say "Redis does not answer at QUIRE_TEST_REDIS_URL ($redis_url)."; exit 1; fi
[ -x "$chromium" ] || { say "no Chromium at $chromium after installing chromium."; exit 1; }
for tool in gnome-keyring-daemon dbus-run-session dbus-send secret-tool; do
  has "$tool" || { say "no $tool after installing gnome-keyring dbus dbus-x11 libsecret-tools."; exit 1; }
done
for shell in zsh fish; do
  has "$shell" || { say "no $shell after installing $shell."; exit 1; }
done
for program in haproxy pgbouncer; do
  has_sbin "$program" || { say "no $program after installing $program."; exit 1; }
done
exit 0
