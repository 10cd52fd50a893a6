import { parseXml, select } from './xml.js';

/** What svc needs from an IdP's SAML metadata. */
export interface IdpMetadata {
  entityId: string;
  /** Single sign-on URL of the HTTP-Redirect binding (what node-saml sends the AuthnRequest to). */
  ssoUrl: string;
  /** Signing certificates, base64 DER as metadata carries them (several during a key rollover). */
  certs: string[];
}

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const IDP = "//*[local-name()='EntityDescriptor']/*[local-name()='IDPSSODescriptor']";

/** Reads IdP metadata; throws naming what is missing (an EntityDescriptor, an SSO URL, a certificate). */
export function parseIdpMetadata(xml: string): IdpMetadata {
  const doc = parseXml(xml);
  const entityId = select(doc, "//*[local-name()='EntityDescriptor']/@entityID")[0];
  if (!entityId) throw new Error('no EntityDescriptor with an entityID');
  if (select(doc, IDP).length === 0 && !doc.getElementsByTagNameNS('*', 'IDPSSODescriptor').length)
    throw new Error(`entity ${entityId} has no IDPSSODescriptor: is this an IdP's metadata?`);
  const ssoUrl = select(doc, `${IDP}/*[local-name()='SingleSignOnService'][@Binding='${REDIRECT}']/@Location`)[0];
  if (!ssoUrl) throw new Error(`entity ${entityId} offers no SingleSignOnService with the HTTP-Redirect binding`);
  const keys = `${IDP}/*[local-name()='KeyDescriptor']`;
  // a KeyDescriptor without `use` serves signing too
  const certs = select(doc, `${keys}[not(@use) or @use='signing']//*[local-name()='X509Certificate']/text()`).map((c) =>
    c.replace(/\s+/g, ''),
  );
  if (certs.length === 0)
    throw new Error(`entity ${entityId} has no signing certificate (KeyDescriptor/X509Certificate)`);
  return { entityId, ssoUrl, certs: [...new Set(certs)] };
}
