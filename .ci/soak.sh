#!/usr/bin/env bash
# The short soak: the soak and load tests of tests/ at their medium sizes
# (-tags soak -short), a few minutes on a 2-core machine. The long soak is
#   go test -tags soak -run Soak -timeout 60m ./tests/
set -euo pipefail
cd "$(dirname "$0")/.."
exec go test -tags soak -short -count=1 -run 'Soak' -timeout 10m -v ./tests/ "$@"
