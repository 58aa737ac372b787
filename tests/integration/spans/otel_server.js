// otel_server.js - a Node.js program instrumented with the OpenTelemetry SDK that serves N
// requests: each works WORK_MS (busy), writes its response to /dev/null and ends a "request"
// span FACTOR times the time it really took (1 honest, 0.5 under-reports). Its spans carry no
// process or thread id (the SDK's default resource has none) and are exported over OTLP/HTTP
// (protobuf) as each ends, while the program waits between requests: the export's writes
// fall between its spans.
//
//     node otel_server.js N WORK_MS FACTOR
'use strict';
const fs = require('fs');
const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');

const n = Number(process.argv[2] || 3);
const workMs = Number(process.argv[3] || 50);
const factor = Number(process.argv[4] || 1);
const provider = new BasicTracerProvider({
	spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())],
});
const tracer = provider.getTracer('otel_server');
const out = fs.openSync('/dev/null', 'w');
const now = () => performance.timeOrigin + performance.now();

function busy(ms) {
	const end = Date.now() + ms;
	while (Date.now() < end)
		;
}

async function main() {
	for (let i = 0; i < n; i++) {
		const t0 = now();
		const span = tracer.startSpan('request', { startTime: t0 });
		busy(workMs);
		fs.writeSync(out, '200 OK\n');
		span.end(t0 + (now() - t0) * factor);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	await provider.shutdown();
}
main().then(() => process.exit(0), (e) => {
	console.error(e);
	process.exit(1);
});
