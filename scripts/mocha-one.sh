#!/usr/bin/env bash
# Runs only the compiled test files given (mocha's config file would add every spec to them):
#   npx tsc -p tsconfig.test.json && bash scripts/mocha-one.sh out/test/unit/x.test.js [...]
set -euo pipefail
cd "$(dirname "$0")/.."
exec npx mocha --no-config --reporter test/reporter.js --timeout 60000 --enable-source-maps "$@"
