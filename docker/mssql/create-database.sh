#!/usr/bin/env bash
# One-shot init for the mssql profile: creates MSSQL_DATABASE if it does not exist yet (idempotent, so a
# restart of the stack is harmless). The service's migrations then create the tables inside it.
set -euo pipefail
db=${MSSQL_DATABASE:?MSSQL_DATABASE must be set}
case $db in *[!A-Za-z0-9_]*) echo "MSSQL_DATABASE may hold only letters, digits and _" >&2; exit 2 ;; esac
here=$(dirname "$0")
for attempt in $(seq 1 30); do
  if bash "$here/sqlcmd.sh" -Q "IF DB_ID(N'$db') IS NULL CREATE DATABASE [$db];"; then
    echo "database $db is ready"
    exit 0
  fi
  echo "SQL Server not accepting logins yet (attempt $attempt of 30)" >&2
  sleep 2
done
exit 1
