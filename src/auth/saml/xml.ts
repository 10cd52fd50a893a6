import { DOMParser } from '@xmldom/xmldom';
import xpath from 'xpath';

/**
 * XML reading for SAML documents we do not validate with node-saml: IdP metadata and, before
 * validation, a response's ids (only to classify a failure or spot a replay; never trusted for
 * login). Parsing errors become one message instead of xmldom's console output.
 */
export function parseXml(text: string): Document {
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: (level: string, msg: unknown) => {
      if (level !== 'warning') errors.push(String(msg));
    },
  }).parseFromString(text, 'text/xml');
  if (errors.length > 0 || !doc?.documentElement)
    throw new Error(`not well-formed XML: ${errors[0] ?? 'no root element'}`);
  return doc;
}

/** Values of an XPath over local names (namespaces vary between IdPs); attributes and text alike. */
export function select(doc: Node, path: string): string[] {
  const nodes = xpath.select(path, doc);
  if (!Array.isArray(nodes)) return [];
  return nodes
    .map((n) => n.nodeValue ?? n.textContent ?? '')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
