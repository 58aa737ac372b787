#!/bin/sh
# run.sh CASE OTLP_CLIENT - one OTLP integration case (see check.js); 77 when Node.js or the
# receiver's packages (npm ci in tests/integration/otlp) are missing.
here=$(dirname "$0")
if ! command -v node >/dev/null 2>&1; then
	echo "skip: node is not installed"
	exit 77
fi
if [ ! -d "$here/node_modules/@opentelemetry/otlp-transformer" ]; then
	echo "skip: the receiver's packages are not installed (npm ci --prefix tests/integration/otlp)"
	exit 77
fi
exec node "$here/check.js" "$@"
