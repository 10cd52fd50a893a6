import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { refusedRange } from '../../src/outbound/address.js';
import { allowsAddress, allowsHost, parseAllowList } from '../../src/outbound/allow-list.js';
import { loadConfig } from '../../src/config/load.js';

/** Which addresses outbound calls may reach on their own, and what SVC_OUTBOUND_ALLOW adds. */

describe('the address rule', () => {
  it('refuses loopback, private, link-local, metadata, CGNAT, unspecified, multicast and broadcast', () => {
    const refused: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['0.0.0.0', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fc00::1', 'uniqueLocal'],
      ['fd12:3456::1', 'uniqueLocal'],
      ['fe80::1', 'linkLocal'],
      ['ff02::1', 'multicast'],
    ];
    for (const [ip, range] of refused) assert.equal(refusedRange(ip), range, ip);
  });

  it('judges IPv6 forms that carry an IPv4 address by that address', () => {
    for (const ip of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:10.0.0.1',
      '::ffff:0:127.0.0.1',
      '64:ff9b::127.0.0.1',
      '2002:a9fe:a9fe::1',
      '::127.0.0.1',
    ]) {
      assert.ok(refusedRange(ip), `${ip} must be refused`);
    }
    for (const ip of ['::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1'])
      assert.equal(refusedRange(ip), undefined, ip);
  });

  it('lets public unicast addresses through', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
    ])
      assert.equal(refusedRange(ip), undefined, ip);
  });

  it('refuses what is not an address at all', () => {
    assert.equal(refusedRange('localhost'), 'invalid');
    assert.equal(refusedRange(''), 'invalid');
  });
});

describe('SVC_OUTBOUND_ALLOW', () => {
  it('takes host names, wildcard suffixes, addresses and CIDR ranges', () => {
    const list = parseAllowList(
      'hooks.corp.example, *.svc.cluster.local  10.20.0.0/16,127.0.0.1 [::1] fd00::/8 Chat.Example.',
    );
    assert.ok(allowsHost(list, 'hooks.corp.example'));
    assert.ok(allowsHost(list, 'HOOKS.corp.example.'));
    assert.ok(allowsHost(list, 'relay.ns.svc.cluster.local'));
    assert.ok(allowsHost(list, 'chat.example'));
    assert.ok(!allowsHost(list, 'svc.cluster.local.evil.example'));
    assert.ok(!allowsHost(list, 'corp.example'));
    assert.ok(allowsAddress(list, '10.20.3.4'));
    assert.ok(allowsAddress(list, '::ffff:10.20.3.4'), 'an IPv4-mapped address is the IPv4 address');
    assert.ok(allowsAddress(list, '127.0.0.1'));
    assert.ok(!allowsAddress(list, '127.0.0.2'));
    assert.ok(allowsAddress(list, '::1'));
    assert.ok(allowsAddress(list, 'fd12::1'));
    assert.ok(!allowsAddress(list, '10.21.0.1'));
    assert.ok(!allowsAddress(list, '169.254.169.254'));
  });

  it('stops start-up naming an entry it cannot read', () => {
    for (const bad of ['127.0.0.1:8080', 'http://hooks.example', '10.0.0.0/33', 'a b/c', '*']) {
      assert.throws(
        () => loadConfig({ SVC_OUTBOUND_ALLOW: bad }),
        /SVC_OUTBOUND_ALLOW: not a host name, address or CIDR range/,
        bad,
      );
    }
    assert.deepEqual(loadConfig({}).outboundAllow, { hosts: [], ranges: [] });
  });
});
