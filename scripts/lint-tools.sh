#!/usr/bin/env bash
# The linters `make lint` runs besides ESLint: shellcheck and yamllint, from Debian's packages. Installs the
# missing ones when it can (root with apt-get); otherwise names them. Prints the tools that are available,
# one per line, for the Makefile. In CI (CI=true) a missing tool is an error; elsewhere its check is skipped
# with a notice.
set -uo pipefail
missing=()
for tool in shellcheck yamllint; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "lint: installing ${missing[*]} (Debian packages)" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >/dev/null 2>&1
fi
status=0
for tool in shellcheck yamllint; do
  if command -v "$tool" >/dev/null 2>&1; then
    echo "$tool"
  elif [ "${CI:-}" = true ]; then
    echo "lint: $tool is missing (apt-get install $tool)" >&2
    status=1
  else
    echo "lint: $tool is missing, its check is skipped (apt-get install $tool, or brew install $tool)" >&2
  fi
done
exit $status
