#!/usr/bin/env bash
# Every TypeScript sample in README.md and docs/ compiles: written into a scratch copy of the repository at
# the path its first line names (scripts/ci/doc-samples.ts), then the copy is type-checked.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
scratch=$(mktemp -d /tmp/doc-samples.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
git ls-files -z | xargs -0 cp --parents -t "$scratch"
ln -s "$repo/node_modules" "$scratch/node_modules"
npx tsx scripts/ci/doc-samples.ts "$scratch"
(cd "$scratch" && npx tsc -p tsconfig.json --noEmit)
echo "doc samples compile"
