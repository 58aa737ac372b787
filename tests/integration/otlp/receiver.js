'use strict';
/*
 * receiver.js - a minimal OTLP/HTTP trace receiver for renacer's integration tests.
 *
 * Decodes what it receives with the OpenTelemetry project's own generated protobuf code
 * (@opentelemetry/otlp-transformer's protobufjs root, opentelemetry-proto 1.x):
 *   POST /v1/traces, Content-Type application/x-protobuf or application/json,
 *   Content-Encoding gzip or none.
 * Protobuf bodies are decoded with ExportTraceServiceRequest.decode; JSON bodies are parsed and
 * every object key is checked against the fields of the generated message classes (so a key
 * that is not a lowerCamelCase OTLP field fails the request). Both are normalized to one plain
 * form (ids as hex, 64-bit integers as decimal strings, attributes as {key: value}) and each
 * request is appended as one JSON line to the store file, with its headers and the status it
 * was answered with.
 *
 * Behaviours (--mode): ok; fail503once (503 + Retry-After: 1 for the first request, then ok);
 * bad400 (400 with a google.rpc.Status body); slow (answers after --delay-ms); partial (200
 * with a partial-success body rejecting 2 spans).
 *
 * Use from the command line:
 *     node receiver.js --port-file FILE --out FILE [--mode M] [--delay-ms N]
 * or as a module: require('./receiver').start({mode, delayMs, out}) -> Promise<{port, close}>.
 */
const fs = require('fs');
const http = require('http');
const zlib = require('zlib');
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root');

const pb = root.opentelemetry.proto;
const Request = pb.collector.trace.v1.ExportTraceServiceRequest;
const Response = pb.collector.trace.v1.ExportTraceServiceResponse;

/* Field names of a generated message class (its prototype's non-function properties). */
function fieldsOf(cls, except) {
	return new Set(Object.getOwnPropertyNames(cls.prototype)
		.filter((k) => typeof cls.prototype[k] !== 'function' && k !== except));
}

/* OTLP/JSON schema: message -> [allowed keys, {key: child message}]. */
const schema = (() => {
	const t = pb.trace.v1, c = pb.common.v1, r = pb.resource.v1;
	const m = {
		Request: [fieldsOf(Request), { resourceSpans: 'ResourceSpans' }],
		ResourceSpans: [fieldsOf(t.ResourceSpans), { resource: 'Resource', scopeSpans: 'ScopeSpans' }],
		Resource: [fieldsOf(r.Resource), { attributes: 'KeyValue' }],
		ScopeSpans: [fieldsOf(t.ScopeSpans), { scope: 'Scope', spans: 'Span' }],
		Scope: [fieldsOf(c.InstrumentationScope), { attributes: 'KeyValue' }],
		Span: [fieldsOf(t.Span), { attributes: 'KeyValue', events: 'Event', links: 'Link', status: 'Status' }],
		Event: [fieldsOf(t.Span.Event), { attributes: 'KeyValue' }],
		Link: [fieldsOf(t.Span.Link), { attributes: 'KeyValue' }],
		Status: [fieldsOf(t.Status), {}],
		KeyValue: [fieldsOf(c.KeyValue), { value: 'AnyValue' }],
		AnyValue: [fieldsOf(c.AnyValue, 'value'), { arrayValue: 'ArrayValue', kvlistValue: 'KeyValueList' }],
		ArrayValue: [fieldsOf(c.ArrayValue), { values: 'AnyValue' }],
		KeyValueList: [fieldsOf(c.KeyValueList), { values: 'KeyValue' }],
	};
	return m;
})();

function checkJson(obj, type, where) {
	const [allowed, children] = schema[type];
	if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
		throw new Error(`${where}: expected a ${type} object`);
	for (const [k, v] of Object.entries(obj)) {
		if (!allowed.has(k))
			throw new Error(`${where}: '${k}' is not a field of ${type}`);
		if (children[k]) {
			const items = Array.isArray(v) ? v : [v];
			items.forEach((item, i) => checkJson(item, children[k], `${where}.${k}[${i}]`));
		}
	}
}

const hex = (b) => (b && b.length ? Buffer.from(b).toString('hex') : '');
const str64 = (v) => (v === null || v === undefined ? '0' : v.toString());

/* AnyValue (decoded message or OTLP/JSON object) -> plain JS value. */
function value(v, isJson) {
	if (!v) return null;
	if (v.stringValue !== undefined && v.stringValue !== null) return v.stringValue;
	if (v.boolValue !== undefined && v.boolValue !== null) return v.boolValue;
	if (v.intValue !== undefined && v.intValue !== null) {
		if (isJson && typeof v.intValue !== 'string')
			throw new Error('intValue must be a decimal string in OTLP/JSON');
		return { int: str64(v.intValue) };
	}
	if (v.doubleValue !== undefined && v.doubleValue !== null) return { double: v.doubleValue };
	if (v.arrayValue) return (v.arrayValue.values || []).map((x) => value(x, isJson));
	return null;
}

function attributes(list, isJson) {
	const out = {};
	for (const kv of list || []) {
		if (kv.key in out) throw new Error(`duplicate attribute ${kv.key}`);
		out[kv.key] = value(kv.value, isJson);
	}
	return out;
}

function idJson(s, len, what) {
	if (s === undefined || s === null || s === '') return '';
	if (typeof s !== 'string' || !new RegExp(`^[0-9a-f]{${len}}$`).test(s))
		throw new Error(`${what} must be ${len} lowercase hex digits in OTLP/JSON, got ${s}`);
	return s;
}

function timeJson(s, what) {
	if (typeof s !== 'string' || !/^[0-9]+$/.test(s))
		throw new Error(`${what} must be a decimal string in OTLP/JSON, got ${JSON.stringify(s)}`);
	return s;
}

function span(s, isJson) {
	const events = (s.events || []).map((e) => ({
		name: e.name,
		time: isJson ? timeJson(e.timeUnixNano, 'timeUnixNano') : str64(e.timeUnixNano),
		attributes: attributes(e.attributes, isJson),
	}));
	if (isJson && s.kind !== undefined && typeof s.kind !== 'number')
		throw new Error('kind must be an integer in OTLP/JSON');
	return {
		traceId: isJson ? idJson(s.traceId, 32, 'traceId') : hex(s.traceId),
		spanId: isJson ? idJson(s.spanId, 16, 'spanId') : hex(s.spanId),
		parentSpanId: isJson ? idJson(s.parentSpanId, 16, 'parentSpanId') : hex(s.parentSpanId),
		traceState: s.traceState || '',
		flags: s.flags || 0,
		name: s.name,
		kind: s.kind || 0,
		start: isJson ? timeJson(s.startTimeUnixNano, 'startTimeUnixNano') : str64(s.startTimeUnixNano),
		end: isJson ? timeJson(s.endTimeUnixNano, 'endTimeUnixNano') : str64(s.endTimeUnixNano),
		attributes: attributes(s.attributes, isJson),
		events,
		status: { code: (s.status && s.status.code) || 0, message: (s.status && s.status.message) || '' },
	};
}

/* ExportTraceServiceRequest (decoded or JSON) -> {resource, scope, spans}. */
function normalize(req, isJson) {
	if (isJson) checkJson(req, 'Request', 'request');
	const rs = req.resourceSpans || [];
	if (rs.length !== 1) throw new Error(`expected one ResourceSpans, got ${rs.length}`);
	const ss = rs[0].scopeSpans || [];
	if (ss.length !== 1) throw new Error(`expected one ScopeSpans, got ${ss.length}`);
	return {
		resource: attributes(rs[0].resource && rs[0].resource.attributes, isJson),
		scope: { name: ss[0].scope && ss[0].scope.name, version: ss[0].scope && ss[0].scope.version },
		spans: (ss[0].spans || []).map((s) => span(s, isJson)),
	};
}

/* Parse a request body as the receiver would: returns the normalized request or throws. */
function decodeBody(body, contentType, contentEncoding) {
	if ((contentEncoding || '').toLowerCase() === 'gzip') body = zlib.gunzipSync(body);
	else if (contentEncoding) throw new Error(`unsupported Content-Encoding ${contentEncoding}`);
	if (/^application\/x-protobuf/.test(contentType || ''))
		return normalize(Request.decode(body), false);
	if (/^application\/json/.test(contentType || ''))
		return normalize(JSON.parse(body.toString('utf8')), true);
	throw new Error(`unsupported Content-Type ${contentType}`);
}

/* A body for `status` in the request's encoding. */
function reply(res, status, isJson, extra) {
	let body;
	if (status === 200 && extra && extra.rejected) {
		const ps = { rejectedSpans: extra.rejected, errorMessage: extra.message };
		body = isJson ? JSON.stringify({ partialSuccess: { rejectedSpans: String(extra.rejected), errorMessage: extra.message } })
			: Buffer.from(Response.encode({ partialSuccess: ps }).finish());
	} else if (status === 200) {
		body = isJson ? '{}' : Buffer.from(Response.encode({}).finish());
	} else {
		/* google.rpc.Status { code = 1, message = 2 }, written by hand: not in the root */
		const msg = ((extra && extra.message) || `status ${status}`).slice(0, 100);
		body = isJson ? JSON.stringify({ code: 3, message: msg })
			: Buffer.concat([Buffer.from([0x08, 0x03, 0x12, Buffer.byteLength(msg)]), Buffer.from(msg)]);
	}
	res.writeHead(status, Object.assign({ 'Content-Type': isJson ? 'application/json' : 'application/x-protobuf' },
		(extra && extra.headers) || {}));
	res.end(body);
}

function start(opts) {
	const mode = opts.mode || 'ok';
	let seq = 0;
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const n = ++seq;
			const isJson = /json/.test(req.headers['content-type'] || '');
			const record = { n, method: req.method, url: req.url, headers: req.headers, status: 0, body: null, error: null };
			let status = 200, extra = null, delay = 0;
			try {
				record.body = decodeBody(Buffer.concat(chunks), req.headers['content-type'],
					req.headers['content-encoding']);
			} catch (e) {
				record.error = String(e.message || e);
				status = 400;
				extra = { message: record.error };
			}
			if (req.method !== 'POST' || req.url !== '/v1/traces') {
				status = 404;
				extra = { message: 'not found' };
			} else if (status === 200 && mode === 'fail503once' && n === 1) {
				status = 503;
				extra = { headers: { 'Retry-After': '1' }, message: 'overloaded' };
			} else if (status === 200 && mode === 'bad400') {
				status = 400;
				extra = { message: 'invalid span: test rejection' };
			} else if (status === 200 && mode === 'partial') {
				extra = { rejected: 2, message: 'span too big' };
			} else if (mode === 'slow') {
				delay = opts.delayMs || 5000;
			}
			record.status = status;
			if (opts.out) fs.appendFileSync(opts.out, JSON.stringify(record) + '\n');
			const answer = () => { if (!res.destroyed) reply(res, status, isJson, extra); };
			if (delay) setTimeout(answer, delay).unref();
			else answer();
		});
	});
	return new Promise((resolve) => {
		server.listen(0, '127.0.0.1', () => {
			resolve({
				port: server.address().port,
				close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
			});
		});
	});
}

module.exports = { start, decodeBody, normalize };

if (require.main === module) {
	const args = process.argv.slice(2);
	const opt = (name, dflt) => {
		const i = args.indexOf(name);
		return i >= 0 ? args[i + 1] : dflt;
	};
	start({ mode: opt('--mode', 'ok'), delayMs: Number(opt('--delay-ms', '5000')), out: opt('--out') })
		.then(({ port }) => {
			const pf = opt('--port-file');
			if (pf) fs.writeFileSync(pf, `${port}\n`);
			else console.log(port);
		});
}
