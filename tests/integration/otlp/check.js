'use strict';
/*
 * check.js - one OTLP integration case: start the receiver (receiver.js) on 127.0.0.1, run
 * otlp_client (renacer's exporter on the synthetic check of fixture.h) against it, then check
 * what arrived: span names, parent/child links, attributes, timestamps, resource, headers,
 * and the exporter's return value, duration and warnings.
 *
 *     node check.js CASE /path/to/otlp_client
 *
 * Exits 0 when the case passes, 1 when it fails, 77 when the receiver's packages are not
 * installed (npm ci in tests/integration/otlp).
 */
const assert = require('assert');
const { spawn } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

let receiver;
try {
	receiver = require('./receiver');
} catch (e) {
	if (e.code === 'MODULE_NOT_FOUND') {
		console.log(`skip: ${e.message.split('\n')[0]} (run 'npm ci' in tests/integration/otlp)`);
		process.exit(77);
	}
	throw e;
}

const TRACE_ID = '0102030405060708090a0b0c0d0e0f10';
const ROOT_ID = 'a1a2a3a4a5a6a7a8';
const PARENT_ID = 'b1b2b3b4b5b6b7b8';
const SPANS_AGGREGATE = 20, SPANS_ALL = 27, SPANS_THRESHOLD = 21;

/* Environment of the client: standard variables as a CI job would set them. */
const BASE_ENV = {
	OTEL_SERVICE_NAME: 'renacer-it',
	OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci,team=perf%20eng',
	OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=secret%20one,x-tenant=acme',
	GITHUB_WORKFLOW: 'perf',
	GITHUB_RUN_ID: '987',
	GITHUB_SERVER_URL: 'https://github.com',
	GITHUB_REPOSITORY: 'acme/api',
	GITHUB_SHA: 'deadbeef',
	GITHUB_REF_NAME: 'main',
	NO_PROXY: '127.0.0.1,localhost',
	no_proxy: '127.0.0.1,localhost',
};

function runClient(client, args, env) {
	return new Promise((resolve, reject) => {
		const clean = Object.fromEntries(Object.entries(process.env)
			.filter(([k]) => !/^(OTEL_|TRACEPARENT|TRACESTATE|GITHUB_)/.test(k)));
		const child = spawn(client, args, { env: Object.assign(clean, BASE_ENV, env || {}) });
		let out = '', err = '';
		child.stdout.on('data', (d) => { out += d; });
		child.stderr.on('data', (d) => { err += d; });
		child.on('error', reject);
		child.on('close', (code) => {
			if (code !== 0) return reject(new Error(`otlp_client exited ${code}: ${err}`));
			resolve(Object.assign(JSON.parse(out), { stderr: err }));
		});
	});
}

function readStore(file) {
	if (!fs.existsSync(file)) return [];
	return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

async function deadPort() {
	return new Promise((resolve) => {
		const s = net.createServer();
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address();
			s.close(() => resolve(port));
		});
	});
}

/* ---- The trace of fixture.h -------------------------------------------------------------- */

function checkTrace(requests, want) {
	const spans = requests.flatMap((r) => r.spans);
	const byId = new Map(spans.map((s) => [s.spanId, s]));
	const named = (name, parentName) => {
		const found = spans.filter((s) => s.name === name &&
			(!parentName || (byId.get(s.parentSpanId) || {}).name === parentName));
		assert.strictEqual(found.length, 1, `one span '${name}' under '${parentName || '*'}', got ${found.length}`);
		return found[0];
	};
	const childOf = (c, p) => assert.strictEqual(c.parentSpanId, p.spanId, `${c.name} is a child of ${p.name}`);

	assert.strictEqual(spans.length, want.spans, 'span count');
	assert.strictEqual(byId.size, spans.length, 'span ids are unique');
	for (const s of spans) {
		assert.strictEqual(s.traceId, TRACE_ID, `trace id of ${s.name}`);
		assert.strictEqual(s.kind, 1, `${s.name} is INTERNAL`);
		assert.ok(BigInt(s.end) >= BigInt(s.start), `${s.name} ends after it starts`);
		if (s.spanId !== ROOT_ID)
			assert.ok(byId.has(s.parentSpanId), `parent of ${s.name} was exported`);
	}
	// Every child lies within its parent: a run within its target, a process within its run,
	// a syscall within its process, a verdict within its target.
	for (const s of spans) {
		const p = byId.get(s.parentSpanId);
		if (!p)
			continue;
		assert.ok(BigInt(s.start) >= BigInt(p.start) && BigInt(s.end) <= BigInt(p.end),
			`${s.name} [${s.start}, ${s.end}] lies within its parent ${p.name} [${p.start}, ${p.end}]`);
	}
	for (const r of requests) {
		assert.strictEqual(r.resource['service.name'], 'renacer-it');
		assert.ok(r.resource['service.version']);
		assert.ok(r.resource['host.name']);
		assert.ok(r.resource['host.arch']);
		assert.strictEqual(r.resource['os.type'], 'linux');
		assert.strictEqual(r.resource['cicd.pipeline.name'], 'perf');
		assert.strictEqual(r.resource['cicd.pipeline.run.id'], '987');
		assert.strictEqual(r.resource['vcs.repository.url.full'], 'https://github.com/acme/api');
		assert.strictEqual(r.resource['vcs.ref.head.revision'], 'deadbeef');
		assert.strictEqual(r.resource['vcs.ref.head.name'], 'main');
		assert.strictEqual(r.resource['deployment.environment'], 'ci');
		assert.strictEqual(r.resource.team, 'perf eng');
		assert.strictEqual(r.scope.name, 'renacer');
	}

	const root = named('renacer check');
	assert.strictEqual(root.spanId, ROOT_ID);
	assert.strictEqual(root.parentSpanId, PARENT_ID, 'root is a child of TRACEPARENT');
	assert.strictEqual(root.flags, 0x301);
	assert.strictEqual(root.start, '1699999997000000000');
	assert.strictEqual(root.end, '1700000002000000000');
	assert.strictEqual(root.status.code, 2);
	assert.deepStrictEqual(root.attributes['renacer.check.exit_code'], { int: '1' });
	assert.strictEqual(root.attributes['renacer.config.path'], 'renacer.toml');

	const api = named('target:api'), batch = named('target:batch');
	childOf(api, root);
	childOf(batch, root);
	assert.strictEqual(batch.status.code, 2);
	assert.strictEqual(batch.status.message, 'killed by SIGSEGV');

	const run0 = named('run:0', 'target:api'), run1 = named('run:1', 'target:api');
	const counting = named('counting_run:0', 'target:api');
	named('run:0', 'target:batch');
	assert.strictEqual(run0.start, '1699999999000000000');
	assert.strictEqual(run1.start, '1699999999500000000');
	assert.strictEqual(run1.end, '1699999999950000000');
	assert.deepStrictEqual(run1.attributes['renacer.run.wall_time_ns'], { int: '450000000' });
	assert.strictEqual(run1.attributes['renacer.run.kind'], 'timing');
	// A timing run counts no syscalls and no allocations: nothing unmeasured is sent.
	assert.ok(!('renacer.run.syscalls' in run1.attributes), 'no syscalls on a timing run');
	assert.ok(!('renacer.run.alloc_peak_bytes' in run1.attributes), 'no alloc_peak on a timing run');
	assert.deepStrictEqual(counting.attributes['renacer.run.index'], { int: '2' });
	assert.strictEqual(counting.attributes['renacer.run.kind'], 'counting');
	assert.deepStrictEqual(counting.attributes['renacer.run.syscalls'], { int: '10' });
	assert.ok(!('renacer.run.wall_time_ns' in counting.attributes), 'no time of a counting run');
	assert.strictEqual(counting.start, '1700000000000000000');
	assert.strictEqual(counting.end, '1700000000500000000');
	if (want.traceparent)
		assert.strictEqual(`00-${TRACE_ID}-${run1.spanId}-01`, want.traceparent,
			'the run span has the id its TRACEPARENT announced');

	const srv = named('process:api-server', 'counting_run:0');
	const sh = named('process:sh', 'process:api-server');
	const bad = named('process:\ufffd\ufffdbad', 'process:sh');
	named('process:batch', 'run:0');
	assert.strictEqual(srv.start, '1700000000000000000');
	assert.strictEqual(srv.end, '1700000000500000000');
	assert.strictEqual(sh.start, '1700000000100000000');
	assert.ok(BigInt(bad.start) >= BigInt(sh.start) && BigInt(bad.end) <= BigInt(sh.end));
	assert.deepStrictEqual(srv.attributes['process.pid'], { int: '1000' });
	assert.deepStrictEqual(sh.attributes['process.parent_pid'], { int: '1000' });
	assert.strictEqual(srv.attributes['process.executable.name'], 'api-server');
	assert.strictEqual(srv.attributes['process.executable.path'], '/usr/bin/api-server');
	assert.deepStrictEqual(srv.attributes['process.command_args'],
		['/usr/bin/api-server', '--token', '[REDACTED]', 'DB_PASSWORD=[REDACTED]', '--port=80']);
	assert.deepStrictEqual(srv.attributes['process.exit.code'], { int: '0' });
	assert.strictEqual(srv.attributes['renacer.process.build_id'], '0123456789abcdef0123456789abcdef01234567');
	assert.strictEqual(srv.events[0].name, 'exec');
	assert.strictEqual(srv.events[0].time, '1700000000001000000');
	assert.strictEqual(sh.status.code, 2);

	if (want.syscalls === 'aggregate') {
		const openat = named('openat', 'process:api-server');
		assert.deepStrictEqual(openat.attributes['renacer.syscall.calls'], { int: '3' });
		assert.deepStrictEqual(openat.attributes['renacer.syscall.errors'], { int: '1' });
		assert.deepStrictEqual(openat.attributes['renacer.syscall.total_ns'], { int: '140000' });
		assert.strictEqual(openat.attributes['renacer.syscall.aggregate'], true);
		named('read', 'process:api-server');
		named('write', 'process:sh');
	} else {
		const sys = spans.filter((s) => ['openat', 'read', 'write'].includes(s.name));
		assert.strictEqual(sys.length, want.syscalls === 'all' ? 10 : 4);
		for (const s of sys) {
			const parent = byId.get(s.parentSpanId);
			assert.ok(parent.name === 'process:api-server' || parent.name === 'process:sh');
			assert.ok(BigInt(s.start) >= BigInt(parent.start) && BigInt(s.end) <= BigInt(parent.end));
		}
		if (want.syscalls === 'all') {
			const enoent = sys.filter((s) => s.attributes['error.type'] === 'ENOENT');
			assert.strictEqual(enoent.length, 1);
			assert.strictEqual(enoent[0].attributes['file.path'], '/etc/missing');
			assert.strictEqual(enoent[0].start, '1700000000003000000');
			assert.strictEqual(enoent[0].end, '1700000000003020000');
			assert.ok(sys.some((s) => s.attributes['file.path'] === '/var/lib/api/\u00e9t\u00e9'));
			assert.ok(sys.some((s) => s.attributes['thread.id'] && s.attributes['thread.id'].int === '1003'));
		}
	}

	const matmul = named('gpu:matmul', 'process:api-server');
	assert.strictEqual(matmul.attributes['renacer.gpu.kind'], 'dispatch');
	assert.deepStrictEqual(matmul.attributes['renacer.gpu.groups'], [{ int: '8' }, { int: '4' }, { int: '1' }]);
	assert.strictEqual(matmul.attributes['renacer.gpu.waited'], true);
	assert.strictEqual(matmul.start, '1700000000020000000');
	assert.strictEqual(matmul.events[0].name, 'submit');
	const upload = named('gpu:upload', 'process:api-server');
	assert.deepStrictEqual(upload.attributes['renacer.gpu.bytes'], { int: '4096' });
	assert.strictEqual(upload.attributes['renacer.gpu.direction'], 'host_to_device');

	const mem = named('assertion:api_memory', 'target:api');
	assert.strictEqual(mem.status.code, 2);
	assert.strictEqual(mem.attributes['test.case.name'], 'api_memory');
	assert.strictEqual(mem.attributes['test.case.result.status'], 'fail');
	assert.strictEqual(mem.attributes['test.suite.name'], 'api');
	assert.strictEqual(mem.attributes['renacer.assertion.verdict'], 'FAIL');
	assert.deepStrictEqual(mem.attributes['renacer.assertion.observed'], { double: 1048576 });
	assert.deepStrictEqual(mem.attributes['renacer.assertion.budget'], { double: 524288 });
	assert.deepStrictEqual(mem.attributes['renacer.assertion.delta_pct'], { double: 100 });
	assert.strictEqual(mem.attributes['renacer.assertion.unit'], 'bytes');
	const lat = named('assertion:api_latency', 'target:api');
	assert.strictEqual(lat.status.code, 0);
	assert.strictEqual(lat.attributes['test.case.result.status'], 'pass');
	assert.strictEqual(named('assertion:batch_runs', 'target:batch').status.code, 2);
	named('assertion:golden:wall_time', 'renacer check');
}

/* ---- Cases ------------------------------------------------------------------------------- */

async function withReceiver(mode, fn, delayMs) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renacer-otlp-'));
	const out = path.join(dir, 'requests.jsonl');
	const r = await receiver.start({ mode, out, delayMs });
	try {
		return await fn({ url: `http://127.0.0.1:${r.port}`, store: () => readStore(out), dir });
	} finally {
		await r.close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

function delivered(store, contentType) {
	for (const rec of store) {
		assert.strictEqual(rec.error, null, `request ${rec.n} decodes: ${rec.error}`);
		assert.strictEqual(rec.url, '/v1/traces');
		assert.ok(rec.headers['content-type'].startsWith(contentType), rec.headers['content-type']);
		assert.strictEqual(rec.headers['x-api-key'], 'secret one', 'percent-decoded header');
		assert.strictEqual(rec.headers['x-tenant'], 'acme');
		assert.ok(/^renacer\//.test(rec.headers['user-agent']));
	}
	return store.filter((r) => r.status === 200).map((r) => r.body);
}

function noSecrets(res) {
	assert.ok(!/secret|hunter2|s3cr3t/.test(res.stderr), `no secret in the warnings: ${res.stderr}`);
}

const cases = {
	async protobuf(client) {
		await withReceiver('ok', async ({ url, store }) => {
			const res = await runClient(client, ['--endpoint', url]);
			assert.strictEqual(res.rc, 0, res.stderr);
			const reqs = delivered(store(), 'application/x-protobuf');
			assert.strictEqual(reqs.length, 1);
			assert.strictEqual(store()[0].headers['content-encoding'], undefined);
			checkTrace(reqs, { spans: SPANS_AGGREGATE, syscalls: 'aggregate', traceparent: res.traceparent_run1 });
			noSecrets(res);
		});
	},
	async json(client) {
		await withReceiver('ok', async ({ url, store }) => {
			const res = await runClient(client, ['--endpoint', url, '--protocol', 'http/json']);
			assert.strictEqual(res.rc, 0, res.stderr);
			const reqs = delivered(store(), 'application/json');
			checkTrace(reqs, { spans: SPANS_AGGREGATE, syscalls: 'aggregate', traceparent: res.traceparent_run1 });
		});
	},
	async gzip(client) {
		for (const proto of ['http/protobuf', 'http/json']) {
			await withReceiver('ok', async ({ url, store }) => {
				const res = await runClient(client, ['--endpoint', url, '--protocol', proto, '--compression', 'gzip']);
				assert.strictEqual(res.rc, 0, res.stderr);
				const reqs = delivered(store(), proto === 'http/json' ? 'application/json' : 'application/x-protobuf');
				assert.strictEqual(store()[0].headers['content-encoding'], 'gzip');
				checkTrace(reqs, { spans: SPANS_AGGREGATE, syscalls: 'aggregate' });
			});
		}
	},
	async env_endpoint(client) {
		/* Endpoint, protocol and compression from the standard variables alone. */
		await withReceiver('ok', async ({ url, store }) => {
			const res = await runClient(client, [], {
				OTEL_EXPORTER_OTLP_ENDPOINT: url,
				OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
				OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
			});
			assert.strictEqual(res.rc, 0, res.stderr);
			const reqs = delivered(store(), 'application/json');
			assert.strictEqual(store()[0].headers['content-encoding'], 'gzip');
			checkTrace(reqs, { spans: SPANS_AGGREGATE, syscalls: 'aggregate' });
		});
	},
	async batches(client) {
		await withReceiver('ok', async ({ url, store }) => {
			const res = await runClient(client, ['--endpoint', url, '--spool', '--syscalls', 'all',
				'--max-bytes', '2048']);
			assert.strictEqual(res.rc, 0, res.stderr);
			const reqs = delivered(store(), 'application/x-protobuf');
			assert.ok(reqs.length >= 3, `split into several requests (${reqs.length})`);
			checkTrace(reqs, { spans: SPANS_ALL, syscalls: 'all' });
		});
	},
	async threshold(client) {
		await withReceiver('ok', async ({ url, store }) => {
			const res = await runClient(client, ['--endpoint', url, '--protocol', 'http/json', '--spool',
				'--syscalls', 'threshold', '--threshold-ns', '50000']);
			assert.strictEqual(res.rc, 0, res.stderr);
			checkTrace(delivered(store(), 'application/json'), { spans: SPANS_THRESHOLD, syscalls: 'threshold' });
		});
	},
	async file(client) {
		/* The JSON Lines file holds the same spans as the protobuf export. */
		await withReceiver('ok', async ({ url, store, dir }) => {
			const file = path.join(dir, 'trace.jsonl');
			const res = await runClient(client, ['--endpoint', url, '--file', file, '--spool', '--syscalls', 'all',
				'--max-bytes', '8192']);
			assert.strictEqual(res.rc, 0, res.stderr);
			assert.strictEqual(res.file_rc, 0, res.stderr);
			const lines = fs.readFileSync(file, 'utf8').split('\n');
			assert.strictEqual(lines.pop(), '', 'the file ends with a newline');
			assert.ok(lines.length >= 2, `several requests in the file (${lines.length})`);
			const fromFile = lines.map((l) => receiver.decodeBody(Buffer.from(l), 'application/json'));
			checkTrace(fromFile, { spans: SPANS_ALL, syscalls: 'all', traceparent: res.traceparent_run1 });
			const fromWire = delivered(store(), 'application/x-protobuf');
			const sorted = (reqs) => reqs.flatMap((r) => r.spans).sort((a, b) => a.spanId.localeCompare(b.spanId));
			assert.deepStrictEqual(sorted(fromFile), sorted(fromWire));
			assert.ok(!fs.readdirSync(dir).some((n) => n.includes('.tmp.')), 'no temporary left');
		});
	},
	async retry503(client) {
		await withReceiver('fail503once', async ({ url, store }) => {
			const res = await runClient(client, ['--endpoint', url, '--timeout-ms', '5000']);
			assert.strictEqual(res.rc, 0, res.stderr);
			const all = store();
			assert.deepStrictEqual(all.map((r) => r.status), [503, 200], 'retried once, delivered once');
			assert.ok(res.ms >= 950, `waited for Retry-After: 1 (${res.ms} ms)`);
			assert.ok(res.ms < 5000, `within the timeout (${res.ms} ms)`);
			checkTrace(delivered(all, 'application/x-protobuf'), { spans: SPANS_AGGREGATE, syscalls: 'aggregate' });
		});
	},
	async retry_after_too_long(client) {
		/* Retry-After: 1 with a 600 ms budget: give up at once instead of sleeping past it. */
		await withReceiver('fail503once', async ({ url, store }) => {
			const res = await runClient(client, ['--endpoint', url, '--timeout-ms', '600']);
			assert.strictEqual(res.rc, -71, res.stderr); /* -EPROTO */
			assert.strictEqual(store().length, 1);
			assert.ok(res.ms < 600, `${res.ms} ms`);
			assert.ok(/HTTP 503.*Retry-After/.test(res.stderr), res.stderr);
		});
	},
	async bad400(client) {
		await withReceiver('bad400', async ({ url, store }) => {
			for (const proto of ['http/protobuf', 'http/json']) {
				const before = store().length;
				const res = await runClient(client, ['--endpoint', url, '--protocol', proto, '--timeout-ms', '5000']);
				assert.strictEqual(res.rc, -71, res.stderr); /* -EPROTO */
				assert.strictEqual(store().length - before, 1, 'a 400 is not retried');
				assert.ok(/warning: otlp export to 'http:\/\/127\.0\.0\.1:\d+\/v1\/traces' failed.*HTTP 400: invalid span: test rejection/
					.test(res.stderr), res.stderr);
				noSecrets(res);
			}
		});
	},
	async partial(client) {
		await withReceiver('partial', async ({ url }) => {
			for (const proto of ['http/protobuf', 'http/json']) {
				const res = await runClient(client, ['--endpoint', url, '--protocol', proto]);
				assert.strictEqual(res.rc, 0, res.stderr);
				assert.ok(/warning: otlp collector at .* rejected 2 of 20 spans: span too big/.test(res.stderr), res.stderr);
			}
		});
	},
	async refused(client) {
		const port = await deadPort();
		const res = await runClient(client, ['--endpoint', `http://127.0.0.1:${port}`, '--timeout-ms', '2000']);
		assert.strictEqual(res.rc, -111, res.stderr); /* -ECONNREFUSED */
		assert.ok(res.ms < 2000, `bounded by the timeout (${res.ms} ms)`);
		assert.ok(/warning: otlp export to .* failed after \d+ attempts/.test(res.stderr), res.stderr);
		noSecrets(res);
	},
	async slow(client) {
		await withReceiver('slow', async ({ url, store }) => {
			const res = await runClient(client, ['--endpoint', url, '--timeout-ms', '1000']);
			assert.strictEqual(res.rc, -110, res.stderr); /* -ETIMEDOUT */
			assert.ok(res.ms >= 900 && res.ms < 1600, `gave up at the timeout (${res.ms} ms)`);
			assert.strictEqual(store().length, 1, 'a timed-out request is not retried past the deadline');
			assert.ok(/warning: otlp export to .* failed/.test(res.stderr), res.stderr);
		}, 5000);
	},
};

async function main() {
	const [name, client] = process.argv.slice(2);
	if (!cases[name] || !client) {
		console.error(`usage: node check.js {${Object.keys(cases).join('|')}} OTLP_CLIENT`);
		process.exit(2);
	}
	try {
		await cases[name](path.resolve(client));
		console.log(`ok: ${name}`);
		process.exit(0);
	} catch (e) {
		console.error(`FAIL: ${name}: ${e.stack || e}`);
		process.exit(1);
	}
}

main();
