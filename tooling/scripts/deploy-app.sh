#!/bin/sh
# Makes the standalone folder of one app: `tooling/scripts/deploy-app.sh <api|web> <target-dir>`.
#
# The folder runs with `node dist/main.js` from anywhere (no repository beside it): the app's
# dist, its production dependencies only, and the workspace packages it uses (@quire/runtime,
# @quire/core, @quire/storage, …) copied in as real directories with their built dist (each
# package's `files`). Plain node resolves their `import` export condition, dist; the `source`
# condition (src) is for the repository's tests only.
#
# The one deploy command: the Dockerfiles (apps/*/Dockerfile) run this script, and
# tooling/test/deploy.test.ts runs it too, so the deploy step the images use is the tested one.
# Build first (`pnpm exec turbo run build --filter=@quire/<app>...`): this copies, it builds nothing.
set -eu

app=${1:-}
target=${2:-}
case "$app" in
  api | web) ;;
  *)
    echo "usage: tooling/scripts/deploy-app.sh <api|web> <target-dir>" >&2
    exit 2
    ;;
esac
if [ -z "$target" ]; then
  echo "usage: tooling/scripts/deploy-app.sh <api|web> <target-dir>" >&2
  exit 2
fi

root=$(cd "$(dirname "$0")/../.." && pwd)
for built in "apps/$app/dist/main.js" packages/runtime/dist/index.js packages/http-edge/dist/index.js packages/rest/dist/index.js packages/storage/dist/index.js packages/core/dist/index.js; do
  if [ ! -f "$root/$built" ]; then
    echo "deploy-app: $built is missing; build first: pnpm exec turbo run build --filter=@quire/$app..." >&2
    exit 1
  fi
done
if [ -e "$target" ] && [ -n "$(ls -A "$target" 2>/dev/null)" ]; then
  echo "deploy-app: $target exists and is not empty; give a new directory" >&2
  exit 1
fi

# --prod: dependencies only. pnpm copies workspace packages into the folder (they are injected:
# hard links or copies from their `files`, never symlinks back into the workspace).
cd "$root"
pnpm --filter="@quire/$app" deploy --prod "$target"

# What pnpm leaves for a later `pnpm install` in the folder names the workspace's paths; the
# folder is run, never installed again.
rm -f "$target/pnpm-lock.yaml" "$target/pnpm-workspace.yaml"

# The API's folder also migrates on its own (`node migrate.mjs`): compose.yaml runs it on a direct
# PostgreSQL connection before the app processes start (tooling/deploy/migrate.mjs says why).
if [ "$app" = api ]; then cp tooling/deploy/migrate.mjs "$target/migrate.mjs"; fi
