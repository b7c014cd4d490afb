// The MCP server (`pallas-triage mcp`, docs/mcp.md) as agents meet it.
// Part 1 drives it with the official TypeScript SDK over stdio: the SDK
// negotiates 2025-11-25 and checks every structuredContent against the
// tool's outputSchema itself. Part 2 writes raw JSON-RPC lines: the
// stateless 2026-07-28 era, which this SDK does not speak yet, the older
// revisions, and lines no client should send. Every line the server
// writes must be a JSON-RPC message. Run by tests/mcp/run.sh.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const PT = process.env.PT;
const SRC = process.env.SRC;
const T = process.env.T;
const SDK = process.env.MCP_SDK_DIR;
const SLOW = process.env.VALGRIND ? 20 : 1;   // valgrind runs every child ~20 times slower
const sdk = (p) => import(pathToFileURL(`${SDK}/node_modules/@modelcontextprotocol/sdk/dist/esm/${p}`).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { McpError } = await sdk('types.js');

const CAPACITY_LOG = path.join(SRC, 'docs/examples/vmem-oom.log');
const LAYOUT_LOG = path.join(SRC, 'tests/fixtures/walk-logs/layout.log');
const META = {
	'io.modelcontextprotocol/protocolVersion': '2026-07-28',
	'io.modelcontextprotocol/clientCapabilities': {},
	'io.modelcontextprotocol/clientInfo': { name: 'mcp_test', version: '1' },
};
const TOOLS = ['triage', 'explain', 'check_block', 'vmem', 'session_start', 'attempt',
	'session_status', 'report'];
const env = { ...process.env, PALLAS_TRIAGE_NOW: '2026-01-02T03:04:05Z' };

let passed = 0, failed = 0;
async function test(name, fn) {
	try {
		await fn();
		passed++;
		console.log(`ok ${name}`);
	} catch (e) {
		failed++;
		console.log(`FAIL ${name}\n    ${String(e.stack || e).split('\n').join('\n    ')}`);
	}
}

function workdir(name) {
	const d = path.join(T, name);
	fs.mkdirSync(d, { recursive: true });
	return d;
}

const hasCheck = spawnSync(PT, ['check', '--help'], { env }).status === 0;

// ------------------------------------------------------------ the SDK

const transport = new StdioClientTransport({ command: PT, args: ['mcp'], env, stderr: 'pipe' });
let serverStderr = '';
transport.stderr.on('data', (d) => { serverStderr += d; });
const client = new Client({ name: 'mcp_test', version: '1.0.0' });
await client.connect(transport);

const text = (r) => r.content.map((c) => c.text).join('\n');

await test('sdk: initialize names the server, its tools and resources, and how to use them', async () => {
	assert.equal(client.getServerVersion().name, 'pallas-triage');
	assert.ok(client.getServerCapabilities().tools);
	assert.ok(client.getServerCapabilities().resources);
	assert.match(client.getInstructions(), /session_start/);
});

await test('sdk: tools/list offers every tool, each with input and output schemas', async () => {
	const { tools } = await client.listTools();
	const names = tools.map((t) => t.name);
	assert.deepEqual(names, hasCheck ? [...TOOLS.slice(0, 4), 'check', ...TOOLS.slice(4)] : TOOLS);
	for (const t of tools) {
		assert.equal(t.inputSchema.type, 'object', t.name);
		assert.equal(t.outputSchema.type, 'object', t.name);
		assert.equal(typeof t.description, 'string');
		assert.equal(t.annotations.openWorldHint, false);
	}
	const triage = tools.find((t) => t.name === 'triage');
	assert.ok(triage.inputSchema.properties.path && triage.inputSchema.properties.log);
	assert.deepEqual(tools.find((t) => t.name === 'attempt').inputSchema.required, ['dir', 'result']);
	assert.equal(tools.find((t) => t.name === 'session_start').annotations.readOnlyHint, false);
});

await test('sdk: triage a log by path: the diagnosis of --json, also as text', async () => {
	const r = await client.callTool({ name: 'triage', arguments: { path: CAPACITY_LOG } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.class, 'capacity');
	assert.equal(r.structuredContent.source, CAPACITY_LOG);
	assert.ok(r.structuredContent.ladder.length > 0);
	assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
	const cli = spawnSync(PT, ['triage', '--json', CAPACITY_LOG], { env });
	assert.equal(r.content[0].text, cli.stdout.toString(), 'byte for byte what the command line prints');
});

await test('sdk: triage pasted text', async () => {
	const log = fs.readFileSync(CAPACITY_LOG, 'utf8');
	const r = await client.callTool({ name: 'triage', arguments: { log } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.class, 'capacity');
	assert.equal(r.structuredContent.source, '<stdin>');
	assert.equal(r.structuredContent.fingerprint,
		JSON.parse(spawnSync(PT, ['triage', '--json', CAPACITY_LOG], { env }).stdout).fingerprint);
});

await test('sdk: triage of a missing file is a tool error that says so', async () => {
	const missing = path.join(T, 'no-such.log');
	const r = await client.callTool({ name: 'triage', arguments: { path: missing } });
	assert.equal(r.isError, true);
	assert.equal(r.structuredContent, undefined);
	assert.match(text(r), /cannot open '.*no-such\.log': No such file or directory/);
	assert.match(text(r), /exit status 3/);
});

await test('sdk: bad arguments are tool errors naming the argument', async () => {
	let r = await client.callTool({ name: 'triage', arguments: {} });
	assert.equal(r.isError, true);
	assert.match(text(r), /path .* or as log/);
	r = await client.callTool({ name: 'triage', arguments: { path: CAPACITY_LOG, log: 'x' } });
	assert.equal(r.isError, true);
	assert.match(text(r), /not both/);
	r = await client.callTool({ name: 'triage', arguments: { path: CAPACITY_LOG, colour: 'red' } });
	assert.equal(r.isError, true);
	assert.match(text(r), /no argument 'colour'; its arguments are: path, log/);
	r = await client.callTool({ name: 'attempt', arguments: { dir: T, result: 'maybe' } });
	assert.equal(r.isError, true);
	assert.match(text(r), /'result' is 'maybe'; it takes fixed, same, new, n-a/);
	r = await client.callTool({ name: 'check_block', arguments: { chip: 'v99', block: '8,128', dtype: 'bf16' } });
	assert.equal(r.isError, true);
	assert.match(text(r), /unknown chip 'v99'/);
	r = await client.callTool({ name: 'vmem', arguments: { chip: 'v5e', block: '8,128', dtype: 'bf16', buffers: 'two' } });
	assert.equal(r.isError, true);
	assert.match(text(r), /'buffers' must be an integer/);
});

await test('sdk: the calculators, checked against their output schemas', async () => {
	let r = await client.callTool({ name: 'check_block', arguments: { chip: 'v5e', block: '7,100', dtype: 'bf16' } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.legal, false);
	assert.deepEqual(r.structuredContent.proposals[0].block, [16, 128]);
	r = await client.callTool({ name: 'check_block', arguments: { chip: 'v6e', block: '8,512', dtype: 'bf16', array: '4096,512' } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.verdict, 'risk');
	r = await client.callTool({ name: 'check_block', arguments: { chip: 'h100', block: '64,64', dtype: 'bf16', mma: 'lhs' } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.backend, 'mosaic-gpu');
	r = await client.callTool({ name: 'vmem', arguments: { chip: 'v5e', block: '2048,2048', dtype: 'float32',
		operand: ['2048,2048:bf16'], scratch: ['8,128'], limit: '32M' } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.fits, false);
	assert.equal(r.structuredContent.operands.length, 1);
	assert.equal(r.structuredContent.limit_bytes, 32 * 1024 * 1024);
});

await test('sdk: check reads a kernel source and points at the line to change', async () => {
	const kernel = path.join(SRC, 'tests/check/matmul-block-L001.py');
	let r = await client.callTool({ name: 'check', arguments: { path: kernel } });
	assert.ok(!r.isError, text(r));
	const l001 = r.structuredContent.findings.find((f) => f.code === 'L001');
	assert.ok(l001, 'an L001 finding');
	assert.equal(l001.class, 'layout');
	assert.equal(l001.line, 35);
	assert.equal(l001.use_line, 45);
	assert.match(l001.fix, /bk=1000 -> 1024/);
	r = await client.callTool({ name: 'check', arguments: { path: path.join(SRC, 'tests/check/matmul.py') } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.findings.length, 0);
	r = await client.callTool({ name: 'check', arguments: { path: kernel, chip: 'v99' } });
	assert.ok(r.isError);
});

await test('sdk: explain a class, and a name that is nothing', async () => {
	let r = await client.callTool({ name: 'explain', arguments: { name: 'capacity' } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.name, 'capacity');
	assert.match(r.structuredContent.page, /fix ladder, cheapest first/);
	assert.equal(r.content[0].text, r.structuredContent.page);
	r = await client.callTool({ name: 'explain', arguments: { name: 'no-such-rule' } });
	assert.equal(r.isError, true);
	assert.match(text(r), /no rule, rung, class.*'no-such-rule'/);
});

const proj1 = workdir('proj1');
const proj2 = workdir('proj2');

await test('sdk: a session of one attempt, and its report', async () => {
	let r = await client.callTool({ name: 'session_start', arguments: { dir: proj1, path: CAPACITY_LOG } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.status, 'in-progress');
	assert.equal(r.structuredContent.class, 'capacity');
	assert.equal(r.structuredContent.attempts_used, 0);
	const rung = r.structuredContent.next.rung;
	assert.ok(fs.existsSync(path.join(proj1, '.pallas-triage/session.json')));
	r = await client.callTool({ name: 'attempt', arguments: { dir: proj1, result: 'same' } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.attempts_used, 1);
	assert.equal(r.structuredContent.last_attempt.rung, rung);
	assert.match(r.structuredContent.last_attempt.result, /^same/);
	r = await client.callTool({ name: 'session_status', arguments: { dir: proj1 } });
	assert.equal(r.structuredContent.attempts_used, 1);
	r = await client.callTool({ name: 'report', arguments: { dir: proj1 } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.format, 'md');
	assert.match(r.structuredContent.report, /^# Debugging report: capacity failure/);
	assert.ok(r.structuredContent.report.includes(rung));
	r = await client.callTool({ name: 'report', arguments: { dir: proj1, format: 'json' } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.report.schema_version, 2);
	assert.equal(r.structuredContent.report.attempts.length, 1);
	assert.match(r.structuredContent.report.attempts[0].result, /^same/);
});

await test('sdk: a pasted log starts a session that keeps it; two directories never mix', async () => {
	const log = fs.readFileSync(LAYOUT_LOG, 'utf8');
	let r = await client.callTool({ name: 'session_start', arguments: { dir: proj2, log } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.class, 'layout');
	assert.ok(fs.readdirSync(path.join(proj2, '.pallas-triage/logs')).some((f) => f.startsWith('first-')));
	r = await client.callTool({ name: 'attempt', arguments: { dir: proj2, result: 'new', log: fs.readFileSync(CAPACITY_LOG, 'utf8') } });
	assert.ok(!r.isError, text(r));
	assert.equal(r.structuredContent.class, 'capacity', 'the new log was classified');
	const one = (await client.callTool({ name: 'session_status', arguments: { dir: proj1 } })).structuredContent;
	const two = (await client.callTool({ name: 'session_status', arguments: { dir: proj2 } })).structuredContent;
	assert.equal(one.first_class, 'capacity');
	assert.equal(two.first_class, 'layout');
	assert.equal(one.attempts_used, 1);
	assert.equal(two.attempts_used, 1);
	assert.notEqual(one.fingerprint, two.fingerprint);
});

await test('sdk: no session in a directory is a tool error', async () => {
	const r = await client.callTool({ name: 'session_status', arguments: { dir: workdir('empty') } });
	assert.equal(r.isError, true);
	assert.match(text(r), /no session in '.*empty\/\.pallas-triage'/);
	assert.ok(!fs.existsSync(path.join(T, 'empty/.pallas-triage')), 'asking created nothing');
});

await test('sdk: explain pages and reports are resources', async () => {
	const { resources } = await client.listResources();
	assert.ok(resources.some((x) => x.uri === 'pallas-triage://explain/capacity'));
	let r = await client.readResource({ uri: 'pallas-triage://explain/capacity' });
	assert.match(r.contents[0].text, /fix ladder, cheapest first/);
	assert.equal(r.contents[0].mimeType, 'text/plain');
	const { resourceTemplates } = await client.listResourceTemplates();
	assert.deepEqual(resourceTemplates.map((x) => x.uriTemplate),
		['pallas-triage://explain/{name}', 'pallas-triage://report/{format}{?dir}']);
	r = await client.readResource({ uri: `pallas-triage://report/md?dir=${encodeURIComponent(proj1)}` });
	assert.match(r.contents[0].text, /^# Debugging report/);
	assert.equal(r.contents[0].mimeType, 'text/markdown');
	await assert.rejects(client.readResource({ uri: 'pallas-triage://explain/no-such-rule' }),
		(e) => e instanceof McpError && e.code === -32002);
	await assert.rejects(client.readResource({ uri: `pallas-triage://report/md?dir=${encodeURIComponent(T)}` }),
		(e) => e instanceof McpError && e.code === -32002 && /no session/.test(JSON.stringify(e.data)));
});

await test('sdk: an unknown tool is a protocol error', async () => {
	await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }),
		(e) => e instanceof McpError && e.code === -32602 && /unknown tool 'no_such_tool'/.test(e.message));
});

await client.close();

// ------------------------------------------------------------ raw lines

// One server; send() writes a line, next() reads the next message. Every
// line on stdout must be a JSON-RPC 2.0 message, or the test fails.
class Raw {
	constructor(args = []) {
		this.proc = spawn(PT, ['mcp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
		this.lines = [];
		this.waiting = null;
		this.stderr = '';
		this.bad = null;
		let rest = '';
		this.proc.stdout.on('data', (d) => {
			rest += d;
			let i;
			while ((i = rest.indexOf('\n')) >= 0) {
				const line = rest.slice(0, i);
				rest = rest.slice(i + 1);
				let m;
				try {
					m = JSON.parse(line);
				} catch {
					this.bad = `not JSON on stdout: ${line.slice(0, 200)}`;
				}
				if (m && ![m].flat().every((x) => x && x.jsonrpc === '2.0'))
					this.bad = `not JSON-RPC on stdout: ${line.slice(0, 200)}`;
				this.lines.push(m);
				this.wake();
			}
		});
		this.proc.stderr.on('data', (d) => { this.stderr += d; });
		this.exit = new Promise((res) => this.proc.on('close', (code) => { this.wake(); res(code); }));
	}
	wake() {
		if (this.waiting)
			this.waiting();
	}
	send(m) {
		this.proc.stdin.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n');
	}
	request(id, method, params) {
		this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
	}
	async next(ms = 30000 * SLOW) {
		const end = Date.now() + ms;
		while (!this.lines.length) {
			if (this.proc.exitCode !== null)
				throw new Error(`the server exited (${this.proc.exitCode}); stderr: ${this.stderr}`);
			if (Date.now() > end)
				throw new Error('no answer in time');
			await new Promise((res) => { this.waiting = res; setTimeout(res, 100); });
		}
		if (this.bad)
			throw new Error(this.bad);
		return this.lines.shift();
	}
	async call(id, method, params) {
		this.request(id, method, params);
		const m = await this.next();
		assert.deepEqual(m.id, id, `the answer to ${id}`);
		return m;
	}
	async close() {
		this.proc.stdin.end();
		const code = await this.exit;
		if (this.bad)
			throw new Error(this.bad);
		return code;
	}
}

const modern = (extra = {}) => ({ _meta: META, ...extra });

await test('stateless: server/discover without initialize', async () => {
	const s = new Raw();
	const m = await s.call('d-1', 'server/discover', modern());
	const r = m.result;
	assert.equal(r.resultType, 'complete');
	assert.deepEqual(r.supportedVersions, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
	assert.deepEqual(r.capabilities, { tools: {}, resources: {} });
	assert.ok(Number.isInteger(r.ttlMs) && r.ttlMs >= 0);
	assert.ok(['public', 'private'].includes(r.cacheScope));
	assert.equal(r._meta['io.modelcontextprotocol/serverInfo'].name, 'pallas-triage');
	assert.equal(typeof r._meta['io.modelcontextprotocol/serverInfo'].version, 'string');
	assert.match(r.instructions, /session_start/);
	assert.equal(await s.close(), 0);
});

await test('stateless: tools/list and tools/call without initialize', async () => {
	const s = new Raw();
	let m = await s.call(1, 'tools/list', modern());
	assert.equal(m.result.resultType, 'complete');
	assert.ok(Number.isInteger(m.result.ttlMs));
	assert.equal(m.result.cacheScope, 'public');
	assert.ok(m.result._meta['io.modelcontextprotocol/serverInfo']);
	assert.deepEqual(m.result.tools.map((t) => t.name).filter((n) => n !== 'check'), TOOLS);
	assert.ok(m.result.tools.every((t) => t.outputSchema && t.title));
	m = await s.call(2, 'tools/call', modern({ name: 'triage', arguments: { path: CAPACITY_LOG } }));
	assert.equal(m.result.resultType, 'complete');
	assert.equal(m.result.isError, false);
	assert.equal(m.result.structuredContent.class, 'capacity');
	assert.equal(m.result.content[0].type, 'text');
	assert.ok(m.result._meta['io.modelcontextprotocol/serverInfo']);
	assert.equal(m.result.ttlMs, undefined, 'a tool result is not cacheable');
	m = await s.call(3, 'tools/call', modern({ name: 'triage', arguments: { path: '/no/such.log' } }));
	assert.equal(m.result.resultType, 'complete');
	assert.equal(m.result.isError, true);
	await s.close();
});

await test('stateless: resources/list, templates and read carry caching hints', async () => {
	const s = new Raw();
	let m = await s.call(1, 'resources/list', modern());
	assert.equal(m.result.resultType, 'complete');
	assert.ok(m.result.resources.length >= 6);
	assert.equal(m.result.cacheScope, 'public');
	m = await s.call(2, 'resources/templates/list', modern());
	assert.equal(m.result.resourceTemplates.length, 2);
	assert.ok(Number.isInteger(m.result.ttlMs));
	m = await s.call(3, 'resources/read', modern({ uri: 'pallas-triage://explain/layout' }));
	assert.equal(m.result.resultType, 'complete');
	assert.match(m.result.contents[0].text, /^layout:/);
	assert.ok(Number.isInteger(m.result.ttlMs));
	m = await s.call(4, 'resources/read', modern({ uri: `pallas-triage://report/json?dir=${encodeURIComponent(proj1)}` }));
	assert.equal(m.result.cacheScope, 'private');
	assert.equal(m.result.ttlMs, 0);
	assert.equal(JSON.parse(m.result.contents[0].text).attempts.length, 1);
	// 2026-07-28 moved "resource not found" from -32002 to -32602
	m = await s.call(5, 'resources/read', modern({ uri: 'pallas-triage://explain/no-such-rule' }));
	assert.equal(m.error.code, -32602);
	assert.equal(m.error.data.uri, 'pallas-triage://explain/no-such-rule');
	m = await s.call(6, 'resources/read', modern({ uri: 'file:///etc/passwd' }));
	assert.equal(m.error.code, -32602);
	await s.close();
});

await test('stateless: each request must name its version and capabilities', async () => {
	const s = new Raw();
	let m = await s.call(1, 'tools/list');
	assert.equal(m.error.code, -32602);
	assert.match(m.error.message, /protocolVersion/);
	m = await s.call(2, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
	assert.equal(m.error.code, -32602);
	assert.match(m.error.message, /clientCapabilities/);
	m = await s.call(3, 'tools/list', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } });
	assert.equal(m.error.code, -32022);
	assert.equal(m.error.data.requested, '1900-01-01');
	assert.ok(m.error.data.supported.includes('2026-07-28'));
	m = await s.call(4, 'ping', modern());
	assert.equal(m.error.code, -32601, '2026-07-28 has no ping');
	// state is not inferred: the next request without _meta is refused again
	m = await s.call(5, 'tools/list');
	assert.equal(m.error.code, -32602);
	await s.close();
});

await test('a broken line gets -32700, and the next request is answered', async () => {
	const s = new Raw();
	s.send('{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {');
	let m = await s.next();
	assert.equal(m.error.code, -32700);
	assert.equal('id' in m, false, 'no id could be read');
	m = await s.call(2, 'server/discover', modern());
	assert.equal(m.result.resultType, 'complete');
	s.send('[1, 2');
	assert.equal((await s.next()).error.code, -32700);
	s.send('"just a string"');
	assert.equal((await s.next()).error.code, -32600);
	s.send('{"id": 7, "method": "tools/list"}');
	m = await s.next();
	assert.equal(m.error.code, -32600);
	assert.equal(m.id, 7);
	s.send('{"jsonrpc": "2.0", "id": null, "method": "tools/list"}');
	assert.equal((await s.next()).error.code, -32600);
	m = await s.call('last', 'server/discover', modern());
	assert.ok(m.result);
	assert.match(s.stderr, /invalid JSON/, 'the problem is logged on stderr');
	assert.equal(await s.close(), 0);
});

await test('an oversized line is refused unread, and the server goes on', async () => {
	const s = new Raw(['--max-line', '4096']);
	s.request(1, 'tools/call', modern({ name: 'triage', arguments: { log: 'x'.repeat(10000) } }));
	let m = await s.next();
	assert.equal(m.error.code, -32600);
	assert.match(m.error.message, /longer than 4096 bytes/);
	assert.equal('id' in m, false);
	m = await s.call(2, 'tools/call', modern({ name: 'check_block', arguments: { chip: 'v5e', block: '8,128', dtype: 'bf16' } }));
	assert.equal(m.result.structuredContent.legal, true);
	await s.close();
	// the default bound: 16 MiB
	const d = new Raw();
	d.send('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + 'y'.repeat(17 << 20) + '"}}');
	m = await d.next();
	assert.equal(m.error.code, -32600);
	assert.match(m.error.message, /longer than 16777216 bytes/);
	m = await d.call(2, 'server/discover', modern());
	assert.ok(m.result);
	await d.close();
});

await test('unknown methods, string ids and notifications', async () => {
	const s = new Raw();
	let m = await s.call('abc', 'no/such/method', modern());
	assert.equal(m.error.code, -32601);
	assert.equal(m.id, 'abc');
	s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
	s.send({ jsonrpc: '2.0', method: 'notifications/whatever', params: modern() });
	s.send({ jsonrpc: '2.0', id: 99, result: {} });  // a response from the client: no answer
	m = await s.call(5, 'server/discover', modern());
	assert.ok(m.result, 'the first answer after three notifications is the request\'s');
	m = await s.call(6, 'tools/call', modern({ name: 'triage', arguments: 'path' }));
	assert.equal(m.error.code, -32602);
	m = await s.call(7, 'tools/call', { ...modern(), name: 42 });
	assert.equal(m.error.code, -32602);
	s.send({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: [1] });
	assert.equal((await s.next()).error.code, -32602);
	await s.close();
});

const initialize = (s, version) => s.call(0, 'initialize', {
	protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' },
});

await test('handshake: 2025-06-18 and 2025-03-26 when a client asks for them', async () => {
	let s = new Raw();
	let m = await initialize(s, '2025-06-18');
	assert.equal(m.result.protocolVersion, '2025-06-18');
	assert.equal(m.result.serverInfo.name, 'pallas-triage');
	assert.equal(m.result.resultType, undefined);
	s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
	m = await s.call(1, 'tools/list');
	assert.ok(m.result.tools.every((t) => t.outputSchema));
	assert.equal(m.result.resultType, undefined, 'no 2026-07-28 fields in a 2025 answer');
	assert.equal(m.result.ttlMs, undefined);
	m = await s.call(2, 'ping');
	assert.deepEqual(m.result, {});
	m = await s.call(3, 'resources/read', { uri: 'pallas-triage://explain/nothing-at-all' });
	assert.equal(m.error.code, -32002, 'resource not found before 2026-07-28');
	s.send('[{"jsonrpc": "2.0", "id": 4, "method": "ping"}]');
	assert.equal((await s.next()).error.code, -32600, 'no batches after 2025-03-26');
	await s.close();

	s = new Raw();
	m = await initialize(s, '2025-03-26');
	assert.equal(m.result.protocolVersion, '2025-03-26');
	m = await s.call(1, 'tools/list');
	assert.ok(m.result.tools.every((t) => !t.outputSchema && !t.title && t.annotations.title));
	m = await s.call(2, 'tools/call', { name: 'triage', arguments: { path: CAPACITY_LOG } });
	assert.equal(m.result.structuredContent, undefined);
	assert.equal(JSON.parse(m.result.content[0].text).class, 'capacity');
	// 2025-03-26 has JSON-RPC batches
	s.send(JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'ping' },
		{ jsonrpc: '2.0', method: 'notifications/initialized' },
		{ jsonrpc: '2.0', id: 'b', method: 'no/such' }]));
	m = await s.next();
	assert.ok(Array.isArray(m), 'a batch is answered with a batch');
	assert.deepEqual(m.map((x) => x.id), ['a', 'b']);
	assert.equal(m[1].error.code, -32601);
	await s.close();
});

await test('handshake: a version the server lacks gets its newest handshake version', async () => {
	const s = new Raw();
	let m = await s.call('p', 'ping');
	assert.deepEqual(m.result, {}, 'ping is answered before initialize');
	m = await s.call('q', 'tools/list');
	assert.equal(m.error.code, -32602, 'nothing else is');
	assert.match(m.error.message, /send initialize first/);
	m = await initialize(s, '2024-01-01');
	assert.equal(m.result.protocolVersion, '2025-11-25');
	m = await s.call(1, 'tools/call', { name: 'vmem', arguments: { chip: 'v5e', block: '512,512', dtype: 'bf16' } });
	assert.equal(m.result.structuredContent.fits, true);
	// a request with modern _meta is still answered statelessly
	m = await s.call(2, 'tools/list', modern());
	assert.equal(m.result.resultType, 'complete');
	await s.close();
});

await test('a tool call that hangs is stopped at --timeout, and the server goes on', async () => {
	const fifo = path.join(T, 'hang.fifo');
	spawnSync('mkfifo', [fifo]);
	const s = new Raw(['--timeout', String(1 * SLOW)]);
	let m = await s.call(1, 'tools/call', modern({ name: 'triage', arguments: { path: fifo } }));
	assert.equal(m.result.isError, true);
	assert.match(m.result.content[0].text, /stopped after \d+ s/);
	m = await s.call(2, 'server/discover', modern());
	assert.ok(m.result);
	await s.close();
});

await test('many calls leak no descriptors, and stdin closed ends the server with 0', async () => {
	const s = new Raw();
	const fds = () => fs.readdirSync(`/proc/${s.proc.pid}/fd`).length;
	await s.call(0, 'server/discover', modern());
	const before = fds();
	const n = process.env.VALGRIND ? 10 : 150;
	for (let i = 1; i <= n; i++) {
		const tool = i % 3 === 0 ? { name: 'triage', arguments: { log: 'Traceback (most recent call last):\nValueError: x\n' } } :
			i % 3 === 1 ? { name: 'check_block', arguments: { chip: 'v5e', block: `${8 * i},128`, dtype: 'bf16' } } :
			{ name: 'session_status', arguments: { dir: proj1 } };
		const m = await s.call(i, 'tools/call', modern(tool));
		assert.ok(m.result, JSON.stringify(m));
	}
	assert.equal(fds(), before, 'open descriptors');
	assert.equal(await s.close(), 0);
});

await test('the command line: --help, and bad options refused before anything is served', async () => {
	let r = spawnSync(PT, ['mcp', '--help'], { env });
	assert.equal(r.status, 0);
	assert.match(r.stdout.toString(), /usage: pallas-triage mcp \[--timeout SECONDS\] \[--max-line BYTES\]/);
	for (const bad of [['--bogus'], ['--timeout', '0'], ['--max-line', 'lots'], ['extra']]) {
		r = spawnSync(PT, ['mcp', ...bad], { env, input: '{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n' });
		assert.equal(r.status, 2, bad.join(' '));
		assert.equal(r.stdout.length, 0, 'nothing on stdout');
		assert.match(r.stderr.toString(), /pallas-triage: error: /);
	}
});

await test('docs/mcp.md has every tool, its arguments and its output schema', async () => {
	const doc = fs.readFileSync(path.join(SRC, 'docs/mcp.md'), 'utf8');
	const section = (name) => {
		const start = doc.indexOf('\n### `' + name + '`\n');
		assert.ok(start >= 0, `no section for ${name}`);
		const end = doc.indexOf('\n### ', start + 1);
		return doc.slice(start, end < 0 ? doc.indexOf('\n## ', start + 1) : end);
	};
	const schemaOf = (name) => {
		const sec = section(name);
		const m = sec.match(/\noutputSchema:\n\n```json\n([\s\S]*?)```/);
		if (m)
			return JSON.parse(m[1]);
		const ref = sec.match(/\noutputSchema: that of `(\w+)`/);
		assert.ok(ref, `no outputSchema for ${name}`);
		return schemaOf(ref[1]);
	};
	const s = new Raw();
	const { tools } = (await s.call(1, 'tools/list', modern())).result;
	await s.close();
	for (const t of tools) {
		for (const p of Object.keys(t.inputSchema.properties))
			assert.ok(section(t.name).includes('| `' + p + '` |'), `argument ${t.name}.${p}`);
		assert.deepEqual(schemaOf(t.name), t.outputSchema, t.name);
	}
});

console.log(`${passed} passed, ${failed} failed`);
if (failed && serverStderr)
	console.log(`the SDK's server said on stderr:\n${serverStderr}`);
process.exit(failed ? 1 : 0);
