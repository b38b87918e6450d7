#!/usr/bin/env bash
# The generator as a team uses it, in a scratch copy of the repository:
#  1. `npm run new:module` twice (notes with every field kind, a unique title, filters and sorting; tags with a
#     reference to notes and a unique (note, name) pair), then lint, type-check, check the API document, run on SQLite
#     every test the generated code can reach (below; the rest of the suite cannot see it and passed in `make test`),
#     and the modules' tests on native PostgreSQL and MariaDB;
#  2. `npm run new:field -- notes priority:integer? --filter --sort`, `… notes title --search`, `… notes rank --default 0`
#     and the close/reopen state actions (`--action close:status=closed,closedAt=now --from open`) on databases that hold notes (a SQLite file, PostgreSQL, MariaDB): its list indexes are built online, the earlier
#     records read the new field as null and are found by ?q= (scripts/ci/populated-field.ts), and the modules' tests pass again;
#  3. `npm run new:field -- tags name --rename label` and `-- tags note --drop` on databases that hold tags:
#     the start-up comparison finds the table exactly as declared (scripts/ci/populated-change.ts), the rows
#     and the code-point comparison kept; then the join module note-tags generates and passes,
#     and `npm run remove:module -- note-tags` leaves the suite green;
#  4. projects and tickets with rules (`status:enum:…=open`, `priority:integer:1..5=3`) generate and pass their tests
#     with no edit; `new:field` adds a field with a rule, widens one and narrows one on databases that hold tickets:
#     the database refuses a bad value written straight into the table, the narrowing is refused naming how many
#     rows break it until they are gone (scripts/ci/populated-rules.ts);
#  5. a booking service by generator forms only: rooms a catalogue (`--read authenticated --write admin`), bookings
#     with `--check 'endsAt > startsAt'`, a status governed by confirm/cancel/reopen and a defaulted priority pass
#     their generated suites unedited on SQLite, PostgreSQL and MariaDB;
#  6. `duplicates` finds no pair between the two generated modules.
# The scratch copy and the databases are removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
started=$(date +%s)

# shellcheck source=scripts/ci/lib/native-databases.sh
source scripts/ci/lib/native-databases.sh
scratch=$(mktemp -d /tmp/new-module-check.XXXXXX)
cleanup() { native_db_stop; rm -rf "$scratch"; }
trap cleanup EXIT

# `npm run typecheck` after each step, incremental: a step changes a few modules, and tsc re-checks what they
# reach (the same diagnostics as a full run, from the state the previous run left in the build info file).
typecheck() { npm run --silent typecheck -- --incremental --tsBuildInfoFile "$scratch/typecheck.tsbuildinfo"; }

echo "== new:module in a scratch copy ($scratch)"
git ls-files -z | (cd "$repo" && xargs -0 cp --parents -t "$scratch")
ln -s "$repo/node_modules" "$scratch/node_modules"
cd "$scratch"
npm run --silent new:module -- notes title:string body:text? pinned:boolean=false dueAt:datetime? rank:integer? score:number? status:string=open \
  --unique title --filter pinned,title,dueAt,rank --sort dueAt,title,createdAt --search body --action archive:archivedAt
npm run --silent new:module -- tags name:string note:ref:notes:cascade --unique note,name --filter note,name --sort name,createdAt

echo "== lint, typecheck and the API document with the generated modules"
npx eslint src/modules test/modules && npx prettier --check --log-level warn src/modules test/modules
typecheck
npm run --silent openapi -- --check

echo "== on SQLite, every test the generated modules can reach (with them in, as make test would run it)"
# A test sees generated code only through the module registry or the modules' files: jest --findRelatedTests
# lists every test file importing any of them, directly or through test/support (src/ joins the roots so that
# the import graph is followed through it). Two more see the modules without
# importing them: loaded-packages starts the service in a child process, links reads every source file. The
# other test files import none of this (the generator's own tests, for one, work in folders of their own):
# their outcome does not depend on the generated modules, and `make test` ran them on this same tree minus the modules.
mapfile -t generated < <(echo src/modules/index.ts; find src/modules/notes src/modules/tags -name '*.ts' | sort)
# The generated tests themselves (test/modules) run next, on SQLite with PostgreSQL and MariaDB.
npx jest --roots '<rootDir>/test' '<rootDir>/src' --findRelatedTests "${generated[@]}" test/service/loaded-packages.test.ts test/docs/links.test.ts \
  --testPathIgnorePatterns '/test/modules/'

echo "== the modules' tests on SQLite and native PostgreSQL and MariaDB"
native_db_start
npx jest --runInBand test/modules

echo "== new:field on databases that hold rows"
sqlite_file="$scratch/populated.sqlite"
# The databases that hold rows; each populated-*.ts checks them in turn, in one process.
databases=("sqlite:$sqlite_file" "$TEST_POSTGRES_URL" "$TEST_MYSQL_URL")
npx tsx scripts/ci/populated-field.ts populate "${databases[@]}"
npm run --silent new:field -- notes priority:integer? --filter --sort
npm run --silent new:field -- notes title --search
npm run --silent new:field -- notes rank --default 0
npm run --silent new:field -- notes --action close:status=closed,closedAt=now --from open
npm run --silent new:field -- notes --action reopen:status=open,closedAt=null --from closed
npx eslint src/modules test/modules && npx prettier --check --log-level warn src/modules test/modules
typecheck
npm run --silent openapi -- --check
npx tsx scripts/ci/populated-field.ts verify "${databases[@]}"
npx jest --runInBand test/modules

echo "== new:field --rename and --drop on databases that hold rows"
npx tsx scripts/ci/populated-change.ts populate "${databases[@]}"
npm run --silent new:field -- tags name --rename label
npm run --silent new:field -- tags note --drop
npx tsx scripts/ci/populated-change.ts verify "${databases[@]}"
npm run --silent new:field -- tags label --optional
npm run --silent new:field -- tags label --required
npx tsx scripts/ci/populated-change.ts verify "${databases[@]}"

echo "== a join module (references only), ?include=, then remove:module"
npm run --silent new:module -- note-tags note:ref:notes:cascade tag:ref:tags:cascade --unique note,tag --filter note,tag
npx eslint src/modules test/modules && npx prettier --check --log-level warn src/modules test/modules
typecheck
npm run --silent openapi -- --check
npx jest --runInBand test/modules test/stores/store-contract.test.ts
npm run --silent remove:module -- note-tags
# Lint and typecheck of what the removal wrote (src/modules/removed, the registry) come with the next step's:
# new:module only adds a folder and a registry entry to this tree, as new:field --rename/--drop above relies on too.
npm run --silent openapi -- --check
npx jest --runInBand test/modules test/stores/store-contract.test.ts

echo "== rules: allowed values and ranges by new:module, then added, widened and narrowed by new:field on databases that hold rows"
npm run --silent new:module -- projects name:string --sort name
npm run --silent new:module -- tickets title:string status:enum:open,in_progress,closed=open priority:integer:1..5=3 \
  project:ref:projects:cascade --filter status,project --sort priority,createdAt --search title
npx eslint src/modules test/modules && npx prettier --check --log-level warn src/modules test/modules
typecheck
npm run --silent openapi -- --check
npx jest --runInBand test/modules/projects test/modules/tickets
npx tsx scripts/ci/populated-rules.ts populate "${databases[@]}"
npm run --silent new:field -- tickets severity:enum:low,normal,high=normal --filter
npm run --silent new:field -- tickets priority --range 1..10
npx tsx scripts/ci/populated-rules.ts widened "${databases[@]}"
npx jest --runInBand test/modules/tickets
npm run --silent new:field -- tickets priority --range 1..3
npx tsx scripts/ci/populated-rules.ts narrow-refused "${databases[@]}"
npx tsx scripts/ci/populated-rules.ts narrowed "${databases[@]}"
npx eslint src/modules test/modules && npx prettier --check --log-level warn src/modules test/modules
typecheck
npm run --silent openapi -- --check
npx jest --runInBand test/modules/tickets

echo "== a booking service by generator forms only: rooms a catalogue, bookings ending after they start"
npm run --silent new:module -- rooms name:string capacity:integer:1..500 --unique name --search name --read authenticated --write admin
npm run --silent new:module -- bookings room:ref:rooms startsAt:datetime endsAt:datetime attendees:integer:1..500 \
  status:enum:requested,confirmed,cancelled=requested priority:enum:low,normal,high=normal --check 'endsAt > startsAt' \
  --filter room,status --sort startsAt,createdAt --action confirm:status=confirmed --from requested
npm run --silent new:field -- bookings --action cancel:status=cancelled --from requested,confirmed
npm run --silent new:field -- bookings --action reopen:status=requested --from cancelled
npx eslint src/modules test/modules && npx prettier --check --log-level warn src/modules test/modules
typecheck
npm run --silent openapi -- --check
grep -q "checks: \['endsAt > startsAt'\]" src/modules/bookings/resource.ts
# Their generated suites, unedited: the policy, the check (each side just outside it, racing updates, the
# database refusing ends_at = starts_at written straight into the table) and the actions, on every engine here.
npx jest --runInBand test/modules/rooms test/modules/bookings
native_db_stop

echo "== duplicates between the two generated modules"
if ! command -v duplicates >/dev/null; then
  echo "SKIPPED: the duplicates tool is not installed on this machine"
else
  # Rows marked boilerplate share only a shape of thin lines (the migrations' literal lists of index columns):
  # declarations, not logic written twice.
  pairs=$(duplicates --repo "$scratch/src/modules" --most 50 | grep -E '^D[0-9]+ (notes|tags)/.* ~ (notes|tags)/' | grep -v 'boilerplate$' || true)
  if [ -n "$pairs" ]; then
    echo "the generated modules repeat each other:"
    echo "$pairs"
    exit 1
  fi
  echo "no pair between src/modules/notes and src/modules/tags"
fi

echo "new-module check passed in $(( $(date +%s) - started )) s"
