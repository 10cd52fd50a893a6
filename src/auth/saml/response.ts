import { parseXml, select } from './xml.js';

/**
 * The ids of a posted SAMLResponse, read before any validation: to name the IdP, the NameID and
 * the request in a failure's event, and to spot a replayed assertion early. Never trusted for login.
 */
export interface ResponseIds {
  issuer?: string;
  inResponseTo?: string;
  assertionId?: string;
  nameId?: string;
}

const RESPONSE = "/*[local-name()='Response']";
const ASSERTION = `${RESPONSE}/*[local-name()='Assertion']`;

/** Throws when the form value is not a base64 SAML Response. */
export function readResponse(samlResponse: string): ResponseIds {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  const doc = parseXml(xml);
  if (doc.documentElement.localName !== 'Response')
    throw new Error(`a ${doc.documentElement.localName} is not a SAML Response`);
  return {
    issuer:
      select(doc, `${RESPONSE}/*[local-name()='Issuer']/text()`)[0] ??
      select(doc, `${ASSERTION}/*[local-name()='Issuer']/text()`)[0],
    inResponseTo: select(doc, `${RESPONSE}/@InResponseTo`)[0],
    assertionId: select(doc, `${ASSERTION}/@ID`)[0],
    nameId: select(doc, `${ASSERTION}/*[local-name()='Subject']/*[local-name()='NameID']/text()`)[0],
  };
}

/** The validated assertion's id and the latest instant it may be used (its NotOnOrAfter). */
export function assertionLifetime(assertionXml: string, fallbackMs: number): { id: string; expiresAt: string } {
  const doc = parseXml(assertionXml);
  const id = select(doc, "/*[local-name()='Assertion']/@ID")[0];
  if (!id) throw new Error('the assertion has no ID');
  const times = [
    ...select(doc, "/*[local-name()='Assertion']/*[local-name()='Conditions']/@NotOnOrAfter"),
    ...select(doc, "//*[local-name()='SubjectConfirmationData']/@NotOnOrAfter"),
  ]
    .map((t) => Date.parse(t))
    .filter((t) => Number.isFinite(t));
  // kept until the latest instant any part of it is valid; an assertion without one, for a while
  const until = times.length > 0 ? Math.max(...times) : fallbackMs;
  return { id, expiresAt: new Date(until).toISOString() };
}
