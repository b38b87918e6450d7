#!/usr/bin/env bash
# README's walkthroughs, run exactly as written (scripts/ci/readme-walkthrough.ts) in a scratch copy of the
# repository, since one of them generates a module: quick start (`make run`), the first authenticated call,
# a generated module called over HTTP. Fails when any answer differs from what README shows.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
scratch=$(mktemp -d /tmp/walkthrough-copy.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# Timestamps kept (-p): make compares package-lock.json with the install stamp of the linked node_modules.
git ls-files -z | xargs -0 cp -p --parents -t "$scratch"
ln -s "$repo/node_modules" "$scratch/node_modules"
cd "$scratch"
npx tsx scripts/ci/readme-walkthrough.ts
