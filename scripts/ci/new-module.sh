#!/usr/bin/env bash
# The generator's templates, tested as a user meets them: in a scratch copy of the repository, generate a
# module (`npm run new:module -- notes title:string body:text? pinned:boolean? dueAt:datetime? rank:integer?
# score:number?`), then lint, type-check and run that module's tests on SQLite and on native PostgreSQL and
# MariaDB (scripts/ci/lib/native-databases.sh); the scratch copy is removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
started=$(date +%s)

# shellcheck source=scripts/ci/lib/native-databases.sh
source scripts/ci/lib/native-databases.sh
scratch=$(mktemp -d /tmp/new-module-check.XXXXXX)
cleanup() { native_db_stop; rm -rf "$scratch"; }
trap cleanup EXIT

echo "== new:module in a scratch copy ($scratch)"
git ls-files -z | (cd "$repo" && xargs -0 cp --parents -t "$scratch")
ln -s "$repo/node_modules" "$scratch/node_modules"
cd "$scratch"
npm run --silent new:module -- notes title:string body:text? pinned:boolean? dueAt:datetime? rank:integer? score:number?

echo "== lint and typecheck with the generated module"
npx eslint src/modules test/modules
npm run --silent typecheck

echo "== the module's tests on SQLite"
npx jest --runInBand test/modules/notes

echo "== the module's tests on native PostgreSQL and MariaDB"
native_db_start
npx jest --runInBand test/modules/notes
native_db_stop

echo "new-module check passed in $(( $(date +%s) - started )) s"
