#!/usr/bin/env bash
# Modules that point at each other, generated, filled, removed and generated again, in a scratch copy of the
# repository, on SQLite, PostgreSQL and MariaDB (scripts/ci/module-removal.ts starts the service each time):
#  1. a small tracker: projects, tickets (project:ref:projects:cascade), labels, the ticket-labels join;
#     on each engine a fresh database takes it and holds a project, a ticket, a label and their link (HTTP);
#  2. remove:module of labels is refused, naming ticket-labels to remove first; then ticket-labels, labels,
#     tickets and projects are removed in that order: the populated databases drop the tables at start-up,
#     and FRESH databases replay every removed history (built before the tables pointing at them, dropped
#     after) and start;
#  3. the four modules generated again under the same names (their migrations numbered after the removed
#     histories): the populated databases build them anew, fresh ones build them after the histories, and
#     both are filled again; then lint and typecheck of the copy.
# Engines: TEST_POSTGRES_URL / TEST_MYSQL_URL (databases kept between the steps) and FRESH_POSTGRES_URL /
# FRESH_MYSQL_URL (emptied before each check) when all four are set; else the native servers of
# scripts/ci/lib/native-databases.sh, with a second database on each for the fresh checks.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
started=$(date +%s)

# shellcheck source=scripts/ci/lib/native-databases.sh
source scripts/ci/lib/native-databases.sh
scratch=$(mktemp -d /tmp/module-removal.XXXXXX)
own_servers=no
cleanup() { if [ "$own_servers" = yes ]; then native_db_stop; fi; rm -rf "$scratch"; }
trap cleanup EXIT

# A second database on each native server, for the app user, named fresh.
native_fresh_databases() {
  local pg_port
  pg_port=$(sed -E 's#.*:([0-9]+)/app$#\1#' <<<"$TEST_POSTGRES_URL")
  native_db_as postgres psql -h "$NATIVE_DB_DIR/postgres" -p "$pg_port" -U postgres -v ON_ERROR_STOP=1 -q -c "CREATE DATABASE fresh OWNER app" >/dev/null
  mariadb --no-defaults --socket="$NATIVE_DB_DIR/mariadb/mysqld.sock" -uroot -e "
    CREATE DATABASE fresh CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
    GRANT ALL ON fresh.* TO 'app'@'127.0.0.1';"
  export FRESH_POSTGRES_URL="${TEST_POSTGRES_URL%/app}/fresh" FRESH_MYSQL_URL="${TEST_MYSQL_URL%/app}/fresh"
}
if [ -z "${TEST_POSTGRES_URL:-}" ] || [ -z "${TEST_MYSQL_URL:-}" ] || [ -z "${FRESH_POSTGRES_URL:-}" ] || [ -z "${FRESH_MYSQL_URL:-}" ]; then
  own_servers=yes
  native_db_start
  native_fresh_databases
fi

git ls-files -z | (cd "$repo" && xargs -0 cp --parents -t "$scratch")
ln -s "$repo/node_modules" "$scratch/node_modules"
cd "$scratch"

populated=("sqlite:$scratch/populated.sqlite" "$TEST_POSTGRES_URL" "$TEST_MYSQL_URL")
fresh=("sqlite:$scratch/fresh.sqlite" "$FRESH_POSTGRES_URL" "$FRESH_MYSQL_URL")
helper() { node_modules/.bin/tsx scripts/ci/module-removal.ts "$@"; }
# on <fill|removed> <populated|fresh>: the service started on each engine's database (a fresh one emptied first).
on() {
  if [ "$2" = fresh ]; then helper "$1" --fresh "${fresh[@]}"; else helper "$1" "${populated[@]}"; fi
}
generate() {
  npm run --silent new:module -- projects name:string --sort name,createdAt >/dev/null
  npm run --silent new:module -- tickets title:string project:ref:projects:cascade --filter project >/dev/null
  npm run --silent new:module -- labels name:string --unique name >/dev/null
  npm run --silent new:module -- ticket-labels ticket:ref:tickets:cascade label:ref:labels:cascade --unique ticket,label --filter ticket,label >/dev/null
}

echo "== the tracker generated, started on empty databases, filled over HTTP"
generate
helper empty "${populated[@]}"
on fill populated

echo "== remove:module: refused while referenced, naming the module to remove first; then in that order"
if refusal=$(npm run --silent remove:module -- labels 2>&1); then echo "remove:module -- labels was not refused"; exit 1; fi
grep -q "remove it first: npm run remove:module -- ticket-labels" <<<"$refusal" || { echo "the refusal does not name ticket-labels: $refusal"; exit 1; }
for module in ticket-labels labels tickets projects; do npm run --silent remove:module -- "$module" >/dev/null; done

echo "== the removal destroys data: start-up refuses it on the populated databases; db:migrate --allow-destructive runs it"
if refusal=$(NODE_ENV=development DATABASE_URL="${populated[0]}" npm run --silent db:migrate -- up 2>&1); then echo "db:migrate up ran the removal without --allow-destructive"; exit 1; fi
grep -q -- "--allow-destructive" <<<"$refusal" || { echo "the refusal does not name --allow-destructive: $refusal"; exit 1; }
for url in "${populated[@]}"; do NODE_ENV=development DATABASE_URL="$url" npm run --silent db:migrate -- up --allow-destructive >/dev/null; done
on removed populated
on removed fresh

echo "== the same modules generated again (numbered after their removed histories)"
generate
ls src/modules/labels/migrations
on fill populated
on fill fresh
npx eslint src/modules test/modules && npx prettier --check --log-level warn src/modules test/modules
npm run --silent typecheck

echo "module-removal check passed in $(( $(date +%s) - started )) s"
