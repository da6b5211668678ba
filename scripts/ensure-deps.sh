#!/usr/bin/env bash
# npm dependencies: `npm ci` when node_modules is missing or older than package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "ensure-deps: installing npm packages (npm ci)"
  npm ci --no-fund --no-audit --loglevel=error
fi
