#!/usr/bin/env bash
# Builds test/fixtures/upgrades/LABEL.sql: a database made by an OLD revision
# of taskqueue, for test/store/upgrade-from-old-code.test.ts.
#
#   scripts/upgrade-fixtures/make-upgrade-fixture.sh REV LABEL
#   e.g. make-upgrade-fixture.sh e9b5430 0.1.0
#
# Checks REV out in a temporary git worktree beside this one (old-LABEL),
# installs and builds it (npm ci, npm run build), runs populate.mjs against
# that revision's own openTaskQueue on a fresh schema (tq_upgrade_fixture) of
# DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), then dumps
# the schema with pg_dump --inserts (grants kept) and removes the worktree.
# The queue.xml it ran with is written beside the dump (LABEL.queue.xml).
set -euo pipefail

REV=${1:?usage: make-upgrade-fixture.sh REV LABEL}
LABEL=${2:?usage: make-upgrade-fixture.sh REV LABEL}
DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
SCHEMA=tq_upgrade_fixture
REPO=$(git rev-parse --show-toplevel)
OUT_DIR="$REPO/test/fixtures/upgrades"
WORKTREE="$(dirname "$REPO")/old-$LABEL"
SHA=$(git -C "$REPO" rev-parse "$REV^{commit}")

cleanup() { git -C "$REPO" worktree remove --force "$WORKTREE" 2>/dev/null || true; }
if [ -z "${KEEP_WORKTREE:-}" ]; then trap cleanup EXIT; fi

if [ "$(git -C "$WORKTREE" rev-parse HEAD 2>/dev/null || true)" != "$SHA" ]; then
  cleanup
  git -C "$REPO" worktree add --detach "$WORKTREE" "$SHA"
fi
if [ ! -f "$WORKTREE/dist/index.js" ]; then
  (cd "$WORKTREE" && npm ci --no-audit --no-fund && npm run build)
fi

mkdir -p "$OUT_DIR"
node "$REPO/scripts/upgrade-fixtures/populate.mjs" "$WORKTREE" "$DATABASE_URL" "$SCHEMA" "$OUT_DIR/$LABEL.queue.xml"

MADE_AT=$(date -u +%Y-%m-%dT%H:%M:%SZ)
{
  echo "-- Upgrade fixture $LABEL: schema $SCHEMA made and filled by taskqueue $(git -C "$REPO" rev-parse --short "$SHA"),"
  echo "-- through that revision's own openTaskQueue (scripts/upgrade-fixtures/populate.mjs)."
  echo "-- Made by: scripts/upgrade-fixtures/make-upgrade-fixture.sh $REV $LABEL"
  echo "-- Made at: $MADE_AT"
  echo "-- Dumped with: pg_dump --inserts --schema=$SCHEMA ($(pg_dump --version))"
  echo "-- The loader (test/helpers/upgrade-fixture.ts) renames the schema and shifts every timestamp by the"
  echo "-- time since 'Made at', so leases and ETAs in the future stay in the future."
  echo
  PGTZ=UTC pg_dump --inserts --schema="$SCHEMA" "$DATABASE_URL"
} >"$OUT_DIR/$LABEL.sql"

PGOPTIONS="-c client_min_messages=warning" psql -q "$DATABASE_URL" -c "drop schema $SCHEMA cascade" \
  -c "drop role if exists ${SCHEMA}_producer, ${SCHEMA}_consumer"
echo "wrote $OUT_DIR/$LABEL.sql ($(wc -c <"$OUT_DIR/$LABEL.sql") bytes)"
