#!/usr/bin/env node
// A local OTLP/HTTP endpoint that accepts every request and decodes nothing:
// the load arm of bench/micro/span_cpu.sh, where only the agent's cost
// counts.  Prints requests and bytes received on SIGTERM.
//   node bench/micro/sink_receiver.js PORT
'use strict';
const http = require('http');
let requests = 0, bytes = 0;
const server = http.createServer((req, res) => {
	req.on('data', (c) => { bytes += c.length; });
	req.on('end', () => {
		requests++;
		res.writeHead(200, { 'Content-Type': 'application/x-protobuf', 'Content-Length': 0 });
		res.end();
	});
});
server.keepAliveTimeout = 60000;
server.listen(Number(process.argv[2]), '127.0.0.1');
process.on('SIGTERM', () => {
	process.stdout.write(`requests ${requests} bytes ${bytes}\n`);
	process.exit(0);
});
