#!/usr/bin/env bash
# `npm run client`: typed clients for the API, generated from the committed openapi.json by three generators
# nobody here wrote (docs/api-clients.md), pinned in tools/api and installed there first when missing:
#   openapi-typescript  → tools/api/generated/api.d.ts (types for openapi-fetch)
#   orval (fetch)       → tools/api/generated/orval/api.ts
#   @hey-api/openapi-ts → tools/api/generated/hey-api/
set -euo pipefail
cd "$(dirname "$0")/../tools/api"
# (Re)installed when a generator is missing: an install from before one was added lacks it.
for tool in openapi-typescript orval openapi-ts; do
  [ -x "node_modules/.bin/$tool" ] || { npm ci --no-audit --no-fund; break; }
done
node_modules/.bin/openapi-typescript ../../openapi.json -o generated/api.d.ts
node_modules/.bin/orval --config orval.config.js --log-level warn
node_modules/.bin/openapi-ts --file openapi-ts.config.js --silent
