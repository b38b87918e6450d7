#!/usr/bin/env bash
# CI: the production dependencies against the npm advisory database (`npm audit --omit=dev`), judged by the
# policy in scripts/audit-policy.ts (docs/releases.md, "Dependency audit"): high or critical fails the build,
# low and moderate are printed, an advisory service that does not answer is a printed warning.
set -euo pipefail
cd "$(dirname "$0")/../.."
report=$(mktemp)
trap 'rm -f "$report"' EXIT
npm audit --omit=dev --json >"$report" 2>/dev/null || true # its exit code mixes findings and errors: judged below
npx --no-install tsx scripts/audit-policy.ts "$report"
