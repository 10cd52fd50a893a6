import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import snappy from 'snappyjs';
import { decodeJson, decodeProtobuf, nsToUs, streamsToEvents } from '../../../src/ingest/loki/decode.js';
import { parseLabels } from '../../../src/ingest/loki/labels.js';
import { PushRequest } from '../../../src/ingest/loki/push-proto.js';
import { timeContext } from '../../../src/events/timestamp.js';

const NOW = timeContext('UTC', Date.UTC(2026, 0, 1));

describe('parseLabels', () => {
  it('reads names, quoted values with escapes, and tolerates spaces', () => {
    assert.deepEqual(parseLabels('{app="web", msg="say \\"hi\\"\\n", level="info"}'), {
      app: 'web',
      msg: 'say "hi"\n',
      level: 'info',
    });
    assert.deepEqual(parseLabels('{}'), {});
  });

  it('refuses a malformed selector naming the problem', () => {
    assert.throws(() => parseLabels('app="web"'), /missing "\{"/);
    assert.throws(() => parseLabels('{app=web}'), /missing quote for app/);
    assert.throws(() => parseLabels('{app="web'), /unterminated/);
  });
});

describe('Loki push decoding', () => {
  it('decodes snappy protobuf with structured metadata', () => {
    const msg = PushRequest.create({
      streams: [
        {
          labels: '{job="api", host="h1", index="web"}',
          entries: [
            {
              timestamp: { seconds: 1763812800, nanos: 123456789 },
              line: 'hello',
              structuredMetadata: [{ name: 'trace_id', value: 'abc' }],
            },
          ],
        },
      ],
    });
    const body = Buffer.from(snappy.compress(PushRequest.encode(msg).finish()));
    const events = streamsToEvents(decodeProtobuf(body, 1 << 20), NOW).decoded;
    assert.equal(events.length, 1);
    const { index, event } = events[0];
    assert.equal(index, 'web');
    assert.equal(event.timeUs, 1763812800123456);
    assert.equal(event.host, 'h1');
    assert.equal(event.source, 'api');
    // the label host became the host: a field repeating it would add nothing (and no column can be named host twice)
    assert.deepEqual(event.fields, { job: 'api', trace_id: 'abc' });
  });

  it('refuses a snappy body that would decompress past the bound', () => {
    const body = Buffer.from(snappy.compress(Buffer.alloc(100_000, 1)));
    assert.throws(() => decodeProtobuf(body, 1000), /larger than 1000 bytes/);
  });

  it('decodes JSON with 2- and 3-element values and nanosecond strings', () => {
    const streams = decodeJson(
      '{"streams":[{"stream":{"app":"x"},"values":[["1763812800000001999","a"],["1763812801000000000","b",{"user":"u1"}]]}]}',
    );
    const events = streamsToEvents(streams, NOW).decoded;
    assert.deepEqual(
      events.map((e) => [e.event.timeUs, e.event.message, e.event.fields.user]),
      [
        [1763812800000001, 'a', undefined],
        [1763812801000000, 'b', 'u1'],
      ],
    );
  });

  it('refuses malformed JSON bodies naming what is wrong', () => {
    assert.throws(() => decodeJson('{"streams":{}}'), /missing "streams"/);
    assert.throws(
      () => decodeJson('{"streams":[{"stream":{},"values":[["soon","a"]]}]}'),
      /cannot parse timestamp "soon"/,
    );
    assert.equal(nsToUs('12'), 0);
  });

  it('keeps a label and structured metadata of the same name, the metadata as <name>_2', () => {
    const streams = decodeJson(
      '{"streams":[{"stream":{"app":"x"},"values":[["1763812801000000000","b",{"app":"y","App":"z"}]]}]}',
    );
    const [e] = streamsToEvents(streams, NOW).decoded;
    assert.deepEqual(e.event.fields, { app: 'x', app_2: 'y', App: 'z' });
  });
});
