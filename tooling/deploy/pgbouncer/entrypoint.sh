#!/bin/sh
# Writes PgBouncer's auth file from the environment (POSTGRES_USER, POSTGRES_PASSWORD), then
# runs PgBouncer in the foreground on tooling/deploy/pgbouncer/pgbouncer.ini.
set -eu
: "${POSTGRES_USER:?set POSTGRES_USER}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
mkdir -p /tmp/pgbouncer
umask 077
printf '"%s" "%s"\n' "$POSTGRES_USER" "$POSTGRES_PASSWORD" >/tmp/pgbouncer/userlist.txt
exec pgbouncer /etc/pgbouncer/pgbouncer.ini
