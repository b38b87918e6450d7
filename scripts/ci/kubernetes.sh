#!/usr/bin/env bash
# CI (called from .ci/run): deploy/kubernetes, offline. Every overlay is rendered with `kubectl kustomize`,
# every object validated against the Kubernetes API schemas (kubernetes-models, from npm) and the release
# checked against the production policy (scripts/kubernetes/policy.ts). No cluster is needed.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v kubectl >/dev/null 2>&1; then
  # This machine's image ships kubectl 1.32; Debian's own package is older (its built-in kustomize may not
  # know every field the overlays use), but renders when nothing newer is at hand.
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubernetes-client >/dev/null
fi
echo "kubernetes.sh: $(kubectl version --client 2>/dev/null | head -n 2 | tr '\n' ' ')"
[[ -d node_modules ]] || make install
npx tsx scripts/kubernetes/validate.ts
echo "kubernetes.sh: passed"
