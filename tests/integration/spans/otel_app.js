// otel_app.js - a Node.js program instrumented with the OpenTelemetry SDK, exporting its
// spans over OTLP/HTTP wherever OTEL_EXPORTER_OTLP_TRACES_ENDPOINT points (renacer's "app"
// collector sets it): a "request" span holding "parse" (PARSE_MS of work) and "render".
// OTEL_EXPORTER_OTLP_PROTOCOL picks the exporter: http/protobuf (default) or http/json.
//
//     node otel_app.js PARSE_MS
'use strict';
const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const proto = (process.env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf') === 'http/json' ?
	require('@opentelemetry/exporter-trace-otlp-http') :
	require('@opentelemetry/exporter-trace-otlp-proto');
const { context, trace } = require('@opentelemetry/api');

const parseMs = Number(process.argv[2] || 5);
const provider = new BasicTracerProvider({
	spanProcessors: [new SimpleSpanProcessor(new proto.OTLPTraceExporter())],
});
const tracer = provider.getTracer('otel_app');

function busy(ms) {
	const end = Date.now() + ms;
	while (Date.now() < end)
		;
}

const request = tracer.startSpan('request', { attributes: { 'http.route': '/items', n: 3 } });
const ctx = trace.setSpan(context.active(), request);
const parse = tracer.startSpan('parse', { attributes: { bytes: 1024 } }, ctx);
busy(parseMs);
parse.end();
const render = tracer.startSpan('render', {}, ctx);
busy(2);
render.end();
request.end();
provider.shutdown().then(() => process.exit(0), (e) => {
	console.error(e);
	process.exit(1);
});
