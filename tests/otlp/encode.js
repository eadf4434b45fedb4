#!/usr/bin/env node
// Makes known OTLP requests with the protobufjs code of
// @opentelemetry/otlp-transformer (independent of our C), or decodes a response.
//
//   node encode.js request metrics|traces|logs > body.pb
//   node encode.js response metrics|traces|logs < resp.pb   (prints JSON)
'use strict';

const root = require('@opentelemetry/otlp-transformer/build/src/generated/root');
const c = root.opentelemetry.proto.collector;
const types = {
	metrics: [c.metrics.v1.ExportMetricsServiceRequest, c.metrics.v1.ExportMetricsServiceResponse],
	traces: [c.trace.v1.ExportTraceServiceRequest, c.trace.v1.ExportTraceServiceResponse],
	logs: [c.logs.v1.ExportLogsServiceRequest, c.logs.v1.ExportLogsServiceResponse],
};

const T = '1700000000123456789'; // more than 2^53: must come back as this string
const resource = {
	attributes: [{ key: 'service.name', value: { stringValue: 'otlp-selftest' } }],
};
const scope = { name: 'selftest', version: '1.0' };

const requests = {
	metrics: {
		resourceMetrics: [{
			resource,
			scopeMetrics: [{
				scope,
				metrics: [
					{ name: 'selftest.gauge', unit: '1', gauge: { dataPoints: [{ timeUnixNano: T, asInt: 42 }] } },
					{
						name: 'selftest.sum',
						sum: {
							aggregationTemporality: 2, isMonotonic: true,
							dataPoints: [{ startTimeUnixNano: T, timeUnixNano: T, asDouble: 1.5,
								attributes: [{ key: 'k', value: { intValue: 7 } }] }],
						},
					},
					{
						name: 'selftest.histogram',
						histogram: {
							aggregationTemporality: 1,
							dataPoints: [{ timeUnixNano: T, count: 3, sum: 6, bucketCounts: [1, 2], explicitBounds: [2] }],
						},
					},
				],
			}],
		}],
	},
	traces: {
		resourceSpans: [{
			resource,
			scopeSpans: [{
				scope,
				spans: [{
					traceId: Buffer.from('0102030405060708090a0b0c0d0e0f10', 'hex'),
					spanId: Buffer.from('a1a2a3a4a5a6a7a8', 'hex'),
					name: 'selftest-span', kind: 2,
					startTimeUnixNano: T, endTimeUnixNano: '1700000000223456789',
					status: { code: 1 },
				}],
			}],
		}],
	},
	logs: {
		resourceLogs: [{
			resource,
			scopeLogs: [{
				scope,
				logRecords: [{ timeUnixNano: T, severityNumber: 9, severityText: 'INFO', body: { stringValue: 'hello otlp' } }],
			}],
		}],
	},
};

const [what, signal] = process.argv.slice(2);
if (!types[signal] || (what !== 'request' && what !== 'response')) {
	process.stderr.write('usage: encode.js request|response metrics|traces|logs\n');
	process.exit(2);
}
if (what === 'request') {
	const t = types[signal][0];
	const msg = t.fromObject(requests[signal]);
	const err = t.verify(msg);
	if (err) throw new Error(err);
	process.stdout.write(Buffer.from(t.encode(msg).finish()));
} else {
	const chunks = [];
	process.stdin.on('data', (d) => chunks.push(d));
	process.stdin.on('end', () => {
		const t = types[signal][1];
		const obj = t.toObject(t.decode(Buffer.concat(chunks)), { longs: String });
		process.stdout.write(JSON.stringify(obj) + '\n');
	});
}
