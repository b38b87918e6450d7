#!/usr/bin/env bash
# Runs sqlcmd as `sa` against MSSQL_HOST (default: this container) with the given arguments.
# Newer SQL Server images ship mssql-tools18 (TLS on by default: -C trusts the self-signed certificate),
# older ones mssql-tools; use whichever exists.
set -euo pipefail
host=${MSSQL_HOST:-localhost}
: "${MSSQL_SA_PASSWORD:?MSSQL_SA_PASSWORD must be set}"
if [ -x /opt/mssql-tools18/bin/sqlcmd ]; then
  exec /opt/mssql-tools18/bin/sqlcmd -C -b -S "$host" -U sa -P "$MSSQL_SA_PASSWORD" "$@"
elif [ -x /opt/mssql-tools/bin/sqlcmd ]; then
  exec /opt/mssql-tools/bin/sqlcmd -b -S "$host" -U sa -P "$MSSQL_SA_PASSWORD" "$@"
fi
echo "sqlcmd not found in this image" >&2
exit 1
