import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeJsonRequest,
  decodeProtobufRequest,
  nanosToUs,
  plainValue,
  requestToEvents,
  type ExportRequest,
  type OtlpDecoded,
} from '../../../src/ingest/otlp/decode.js';
import { timeContext, type TimeContext } from '../../../src/events/timestamp.js';

const NOW = timeContext('UTC', Date.UTC(2026, 0, 1));

/** The events of an export (none refused). */
function decoded(req: ExportRequest, time: TimeContext): OtlpDecoded[] {
  return requestToEvents(req, time).map((d) => {
    if ('refused' in d) throw new Error(d.refused);
    return d;
  });
}
import { ExportLogsServiceRequest } from '../../../src/ingest/otlp/logs-proto.js';

const request = {
  resourceLogs: [
    {
      resource: {
        attributes: [
          { key: 'service.name', value: { stringValue: 'api' } },
          { key: 'host.name', value: { stringValue: 'h1' } },
        ],
      },
      scopeLogs: [
        {
          scope: { name: 'lib', version: '2' },
          logRecords: [
            {
              timeUnixNano: '1763812800123456789',
              severityNumber: 17,
              severityText: 'ERROR',
              body: { stringValue: 'boom' },
              attributes: [
                { key: 'n', value: { intValue: '42' } },
                { key: 'big', value: { intValue: '9007199254740993' } },
                { key: 'ok', value: { boolValue: false } },
                { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { doubleValue: 1.5 }] } } },
                { key: 'svc.index', value: { stringValue: 'errors' } },
              ],
              traceId: '5B8EFFF798038103D269B633813FC60C',
              spanId: 'EEE19B7EC3C1B174',
            },
          ],
        },
      ],
    },
  ],
};

describe('OTLP decoding', () => {
  it('maps a JSON request to events with attributes, severity, ids and the index attribute', () => {
    const [d] = decoded(decodeJsonRequest(JSON.stringify(request)), NOW);
    assert.equal(d.index, 'errors');
    assert.equal(d.event.timeUs, 1763812800123456);
    assert.deepEqual(
      [d.event.host, d.event.source, d.event.sourcetype, d.event.message],
      ['h1', 'api', 'otlp', 'boom'],
    );
    assert.deepEqual(d.event.fields, {
      'service.name': 'api',
      'host.name': 'h1',
      'scope.name': 'lib',
      'scope.version': '2',
      n: 42,
      big: '9007199254740993',
      ok: false,
      list: '["a",1.5]',
      severity: 'ERROR',
      severity_number: 17,
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'eee19b7ec3c1b174',
    });
  });

  it('reads the same request from protobuf, with ids as bytes', () => {
    const proto = structuredClone(request) as unknown as {
      resourceLogs: { scopeLogs: { logRecords: Record<string, unknown>[] }[] }[];
    };
    const rec = proto.resourceLogs[0].scopeLogs[0].logRecords[0];
    rec.traceId = Buffer.from('5B8EFFF798038103D269B633813FC60C', 'hex');
    rec.spanId = Buffer.from('EEE19B7EC3C1B174', 'hex');
    const body = Buffer.from(ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(proto)).finish());
    const fromProto = decoded(decodeProtobufRequest(body), NOW);
    const fromJson = decoded(decodeJsonRequest(JSON.stringify(request)), NOW);
    assert.deepEqual(fromProto, fromJson);
  });

  it('falls back to observed time, then arrival', () => {
    const [d] = decoded(
      {
        resourceLogs: [
          {
            scopeLogs: [
              {
                logRecords: [
                  {
                    observedTimeUnixNano: 1763812800000000000,
                    body: { kvlistValue: { values: [{ key: 'message', value: { stringValue: 'm' } }] } },
                  },
                ],
              },
            ],
          },
        ],
      },
      NOW,
    );
    assert.equal(d.event.timeUs, 1763812800000000);
    assert.equal(d.event.message, 'm');
    assert.equal(decoded({ resourceLogs: [{ scopeLogs: [{ logRecords: [{}] }] }] }, NOW)[0].event.timeUs, NOW.nowUs);
    assert.equal(nanosToUs('0'), undefined);
    assert.equal(plainValue({ bytesValue: Buffer.from('hi') }), 'aGk=');
  });

  it('refuses corrupt bodies with a message', () => {
    assert.throws(() => decodeProtobufRequest(Buffer.from([0x0a, 0xff])), /cannot decode ExportLogsServiceRequest/);
    assert.throws(() => decodeJsonRequest('[1]'), /cannot parse ExportLogsServiceRequest JSON/);
  });

  it("keeps an attribute named like a record's own field: the record's value as <name>_2", () => {
    const req = {
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                {
                  severityText: 'ERROR',
                  traceId: '0102030405060708090a0b0c0d0e0f10',
                  body: { stringValue: 'b' },
                  attributes: [
                    { key: 'severity', value: { stringValue: 'own' } },
                    { key: 'trace_id', value: { stringValue: 't' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const [d] = decoded(req, NOW);
    assert.deepEqual(
      [d.event.fields.severity, d.event.fields.severity_2, d.event.fields.trace_id, d.event.fields.trace_id_2],
      ['own', 'ERROR', 't', '0102030405060708090a0b0c0d0e0f10'],
    );
  });
});
