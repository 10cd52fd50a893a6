import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classify } from '../../src/auth/saml/failures.js';
import { parseIdpMetadata } from '../../src/auth/saml/metadata.js';
import { assertionLifetime, readResponse } from '../../src/auth/saml/response.js';
import {
  effectiveSaml,
  resolveSaml as resolveWith,
  SamlSettingError,
  type EffectiveSaml,
} from '../../src/auth/saml/settings.js';
import { OutboundClient } from '../../src/outbound/client.js';
import { NO_ALLOW, parseAllowList } from '../../src/outbound/allow-list.js';
import { safeNext } from '../../src/auth/saml/sso.js';
import { runServerProcessToExit } from '../helpers/process.js';
import { startTestServer } from '../helpers/server.js';
import { searchSelfLog } from '../helpers/selflog.js';
import { makeIdpCerts } from '../helpers/saml-idp.js';

const certs = makeIdpCerts();
after(() => rmSync(certs.dir, { recursive: true, force: true }));
/** As svc resolves them with SVC_OUTBOUND_ALLOW unset. */
const resolveSaml = (eff: EffectiveSaml, publicUrl: string | undefined) =>
  resolveWith(eff, publicUrl, new OutboundClient(NO_ALLOW));
const der = certs.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '');

/** IdP metadata as Okta, Entra ID and Keycloak publish it: namespaced, a signing key, both bindings. */
function metadata(opts: { entityId?: string; bindings?: string[]; use?: string | null; cert?: string } = {}): string {
  const bindings = opts.bindings ?? ['HTTP-POST', 'HTTP-Redirect'];
  const use = opts.use === null ? '' : ` use="${opts.use ?? 'signing'}"`;
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${opts.entityId ?? 'https://idp.example/saml'}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor${use}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>
      ${opts.cert ?? der}
    </ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    ${bindings.map((b) => `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${b}" Location="https://idp.example/sso/${b}"/>`).join('\n    ')}
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

describe('IdP metadata', () => {
  it('gives the entity id, the HTTP-Redirect sign-in URL and the signing certificate', () => {
    const m = parseIdpMetadata(metadata());
    assert.equal(m.entityId, 'https://idp.example/saml');
    assert.equal(m.ssoUrl, 'https://idp.example/sso/HTTP-Redirect');
    assert.deepEqual(m.certs, [der]);
  });

  it('takes a key without `use` as a signing key, and leaves encryption keys out', () => {
    assert.deepEqual(parseIdpMetadata(metadata({ use: null })).certs, [der]);
    assert.throws(() => parseIdpMetadata(metadata({ use: 'encryption' })), /no signing certificate/);
  });

  it('refuses what is not usable, saying what is missing', () => {
    assert.throws(() => parseIdpMetadata('<not-closed'), /not well-formed XML/);
    assert.throws(
      () => parseIdpMetadata('<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"/>'),
      /no EntityDescriptor/,
    );
    assert.throws(
      () => parseIdpMetadata(metadata({ bindings: ['HTTP-POST'] })),
      /no SingleSignOnService with the HTTP-Redirect binding/,
    );
    assert.throws(
      () =>
        parseIdpMetadata(
          '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="sp"><md:SPSSODescriptor/></md:EntityDescriptor>',
        ),
      /no IDPSSODescriptor/,
    );
  });
});

describe('SAML settings', () => {
  it('lets each SVC_SAML_* variable win over the same field saved in Admin → General', () => {
    const eff = effectiveSaml(
      { spEntityId: 'from-env', clockSkewSecs: 5 },
      { spEntityId: 'saved', match: 'email', clockSkewSecs: 120 },
    );
    assert.deepEqual(eff.spEntityId, { value: 'from-env', from: 'env' });
    assert.deepEqual(eff.clockSkewSecs, { value: 5, from: 'env' });
    assert.deepEqual(eff.match, { value: 'email', from: 'settings' });
  });

  it('resolves metadata text into node-saml settings with the ACS under SVC_PUBLIC_URL', async () => {
    const r = await resolveSaml(
      effectiveSaml({}, { idpMetadata: metadata(), spEntityId: 'urn:svc' }),
      'https://logs.example',
    );
    assert.equal(r.entryPoint, 'https://idp.example/sso/HTTP-Redirect');
    assert.equal(r.idpEntityId, 'https://idp.example/saml');
    assert.equal(r.acsUrl, 'https://logs.example/api/auth/saml/acs');
    assert.match(r.idpCerts[0], /^-----BEGIN CERTIFICATE-----\n/);
    assert.deepEqual([r.match, r.clockSkewMs, r.idpInitiated], ['nameid', 60_000, false]);
  });

  it('reads a certificate and metadata from the files the variables name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-saml-'));
    try {
      writeFileSync(join(dir, 'idp.xml'), metadata());
      const r = await resolveSaml(
        effectiveSaml(
          { idpMetadata: join(dir, 'idp.xml'), idpCertPath: join(certs.dir, 'idp.crt'), spEntityId: 'urn:svc' },
          undefined,
        ),
        'https://logs.example',
      );
      assert.equal(r.idpCerts.length, 1);
      assert.equal(r.entryPoint, 'https://idp.example/sso/HTTP-Redirect');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the setting that is wrong', async () => {
    const fails = async (
      env: Record<string, unknown>,
      stored: Record<string, unknown>,
      publicUrl: string | undefined,
      setting: string,
      message: RegExp,
    ) => {
      await assert.rejects(
        resolveSaml(effectiveSaml(env, stored), publicUrl),
        (e: unknown) => e instanceof SamlSettingError && e.setting === setting && message.test(e.message),
      );
    };
    const base = { idpMetadata: metadata(), spEntityId: 'urn:svc' };
    await fails({}, base, undefined, 'SVC_PUBLIC_URL', /is required/);
    await fails({}, { idpMetadata: metadata() }, 'https://l', 'SVC_SAML_SP_ENTITY_ID', /is required/);
    await fails({ idpCertPath: '/nonexistent/idp.crt' }, base, 'https://l', 'SVC_SAML_IDP_CERT_PATH', /cannot read/);
    await fails({}, { ...base, idpCert: 'garbage' }, 'https://l', 'saml.idpCert', /not an X\.509 certificate/);
    await fails({}, { ...base, idpMetadata: '<x/>' }, 'https://l', 'saml.idpMetadata', /not usable IdP metadata/);
    await fails(
      {},
      { spEntityId: 'urn:svc', idpSsoUrl: 'https://idp/sso' },
      'https://l',
      'SVC_SAML_IDP_CERT_PATH',
      /is required with SVC_SAML_IDP_SSO_URL/,
    );
    await fails({}, { ...base, match: 'bad match!' }, 'https://l', 'saml.match', /want "nameid" or an attribute name/);
    await fails(
      { idpMetadata: 'http://127.0.0.1:9/metadata' },
      { spEntityId: 'urn:svc' },
      'https://l',
      'SVC_SAML_IDP_METADATA',
      /cannot fetch/,
    );
  });

  it('stops svc at start when a SVC_SAML_* setting is wrong, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-saml-start-'));
    try {
      const r = await runServerProcessToExit({
        SVC_DATA_DIR: dir,
        SVC_PUBLIC_URL: 'http://127.0.0.1:7300',
        SVC_SAML_SP_ENTITY_ID: 'urn:svc',
        SVC_SAML_IDP_SSO_URL: 'https://idp.example/sso',
        SVC_SAML_IDP_CERT_PATH: join(dir, 'missing.crt'),
      });
      assert.notEqual(r.code, 0);
      assert.match(r.output, /SVC_SAML_IDP_CERT_PATH: cannot read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('IdP metadata from a URL', () => {
  // a local IdP: /metadata answers the metadata, /moved redirects there
  const got: string[] = [];
  const idp = createServer((req, res) => {
    got.push(req.url ?? '');
    if (req.url === '/moved') return void res.writeHead(302, { location: '/metadata' }).end();
    res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadata());
  });
  let url = '';
  before(async () => {
    await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(idp.address() as { port: number }).port}`;
  });
  after(() => idp.close());

  it('fetches the URL the operator set in SVC_SAML_IDP_METADATA, whatever its address', async () => {
    const r = await resolveSaml(
      effectiveSaml({ idpMetadata: `${url}/metadata`, spEntityId: 'urn:svc' }, undefined),
      'https://l',
    );
    assert.equal(r.entryPoint, 'https://idp.example/sso/HTTP-Redirect');
    assert.equal(r.metadataUrl, `${url}/metadata`);
  });

  it('follows no redirect, and says where it pointed', async () => {
    got.length = 0;
    await assert.rejects(
      resolveSaml(effectiveSaml({ idpMetadata: `${url}/moved`, spEntityId: 'urn:svc' }, undefined), 'https://l'),
      (e: unknown) =>
        e instanceof SamlSettingError &&
        e.setting === 'SVC_SAML_IDP_METADATA' &&
        /answered 302: redirects are not followed.*\/metadata/.test(e.message) &&
        !e.transient,
    );
    assert.deepEqual(got, ['/moved']);
  });

  it('refuses a URL saved in Admin → General at a loopback address unless SVC_OUTBOUND_ALLOW allows it', async () => {
    got.length = 0;
    const saved = effectiveSaml({}, { idpMetadata: `${url}/metadata`, spEntityId: 'urn:svc' });
    await assert.rejects(
      resolveSaml(saved, 'https://l'),
      (e: unknown) =>
        e instanceof SamlSettingError &&
        e.setting === 'saml.idpMetadata' &&
        /127\.0\.0\.1 is not a public address \(loopback\)/.test(e.message),
    );
    assert.deepEqual(got, [], 'nothing was asked of the IdP');
    const r = await resolveWith(saved, 'https://l', new OutboundClient(parseAllowList('127.0.0.1')));
    assert.equal(r.idpEntityId, 'https://idp.example/saml');
    assert.deepEqual(got, ['/metadata']);
  });
});

describe('an IdP that cannot be reached when svc starts', () => {
  it('does not stop svc: sign-in ends on the generic page and saml_config_invalid is recorded', async () => {
    const srv = await startTestServer({
      SVC_PUBLIC_URL: 'http://127.0.0.1:7300',
      SVC_SAML_SP_ENTITY_ID: 'urn:svc',
      SVC_SAML_IDP_METADATA: 'http://127.0.0.1:9/metadata',
    });
    try {
      const started = await searchSelfLog(srv, 'event=saml_config_invalid', '_svclogs');
      assert.match(String(started.events[0]?.fields.reason), /SVC_SAML_IDP_METADATA: cannot fetch/);
      const login = await srv.app.inject({ method: 'GET', url: '/api/auth/saml/login?next=/ui/search' });
      assert.deepEqual([login.statusCode, login.headers.location], [303, '/ui/sso-failed']);
      const meta = await srv.app.inject({ method: 'GET', url: '/api/auth/saml/metadata' });
      assert.equal(meta.statusCode, 503);
      assert.equal(meta.json().error.code, 'sso_unavailable');
    } finally {
      await srv.close();
    }
  });
});

describe('SAML failures and responses', () => {
  it("turns node-saml's reasons into svc's events", () => {
    const cases: [string, string, string | undefined][] = [
      ['Invalid document signature', 'saml_signature_invalid', undefined],
      ['Invalid signature: multiple assertions', 'saml_signature_invalid', undefined],
      ['SAML assertion audience mismatch. Expected: a Received: b', 'saml_audience_mismatch', undefined],
      ['SAML assertion expired: clocks skewed too much', 'saml_assertion_expired', 'expired'],
      [
        'No valid subject confirmation found among those available in the SAML assertion',
        'saml_assertion_expired',
        'expired',
      ],
      ['SAML assertion not yet valid', 'saml_assertion_expired', 'not_yet_valid'],
      ['InResponseTo is not valid', 'saml_response_invalid', 'unknown_request'],
      ['InResponseTo is missing from response', 'saml_response_invalid', 'unsolicited'],
      ['Unknown SAML issuer. Expected: a Received: b', 'saml_response_invalid', 'wrong_issuer'],
      ['SAML provider returned Responder error: AuthnFailed', 'saml_response_invalid', 'idp_status'],
      ['Missing SAML assertion', 'saml_response_invalid', 'malformed'],
    ];
    for (const [message, event, cause] of cases)
      assert.deepEqual(classify(message), cause ? { event, cause } : { event }, message);
  });

  it("reads a response's ids before validation, and refuses what is not a Response", () => {
    const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" InResponseTo="_req1"><saml:Issuer>https://idp</saml:Issuer><saml:Assertion ID="_a1"><saml:Subject><saml:NameID>u@x</saml:NameID></saml:Subject></saml:Assertion></samlp:Response>`;
    assert.deepEqual(readResponse(Buffer.from(xml).toString('base64')), {
      issuer: 'https://idp',
      inResponseTo: '_req1',
      assertionId: '_a1',
      nameId: 'u@x',
    });
    assert.throws(() => readResponse(Buffer.from('<html/>').toString('base64')), /not a SAML Response/);
    assert.throws(() => readResponse('!!!'), /XML/);
  });

  it('keeps a used assertion until the latest instant any part of it is valid', () => {
    const xml = `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a2"><saml:Subject><saml:SubjectConfirmation><saml:SubjectConfirmationData NotOnOrAfter="2026-01-01T00:10:00Z"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotOnOrAfter="2026-01-01T00:05:00Z"/></saml:Assertion>`;
    assert.deepEqual(assertionLifetime(xml, 0), { id: '_a2', expiresAt: '2026-01-01T00:10:00.000Z' });
  });

  it('brings the browser back to a page of the UI only', () => {
    assert.equal(safeNext('/ui/search?q=a'), '/ui/search?q=a');
    for (const bad of [
      undefined,
      '',
      'https://evil.example/ui/',
      '//evil.example/ui/',
      '/api/admin/api-keys',
      '/ui\\..\\x',
      '/ui/\r\nSet-Cookie:x',
    ])
      assert.equal(safeNext(bad), '/ui/search', String(bad));
  });
});
