/**
 * Why a single sign-on failed, as the `saml_*` event that records it in `_svclogs`
 * (docs/decisions/0016-saml-match-only.md). The browser is told none of this: it gets one generic page.
 */
export type SamlEvent =
  | 'saml_signature_invalid'
  | 'saml_audience_mismatch'
  | 'saml_assertion_expired'
  | 'saml_assertion_replayed'
  | 'saml_user_unknown'
  | 'saml_user_disabled'
  | 'saml_config_invalid'
  | 'saml_response_invalid';

/** What the event carries: the IdP, the NameID, the request id, the reason. Never the assertion. */
export interface SamlFailureDetail {
  idp?: string;
  name_id?: string;
  request_id?: string;
  /** A finer cause within the event (e.g. `unknown_request`, `not_yet_valid`). */
  cause?: string;
}

export class SamlFailure extends Error {
  constructor(
    readonly event: SamlEvent,
    /** The reason, for the self-log (node-saml's message, or ours). */
    readonly reason: string,
    readonly detail: SamlFailureDetail = {},
  ) {
    super(reason);
  }
}

/** node-saml's errors (its messages are its only contract) as svc's events and causes. */
export function classify(message: string): { event: SamlEvent; cause?: string } {
  if (/signature/i.test(message)) return { event: 'saml_signature_invalid' };
  if (/audience/i.test(message)) return { event: 'saml_audience_mismatch' };
  if (/not yet valid/i.test(message)) return { event: 'saml_assertion_expired', cause: 'not_yet_valid' };
  // an expired SubjectConfirmation leaves "no valid subject confirmation"
  if (/expired|no valid subject confirmation/i.test(message))
    return { event: 'saml_assertion_expired', cause: 'expired' };
  if (/InResponseTo is missing/i.test(message)) return { event: 'saml_response_invalid', cause: 'unsolicited' };
  if (/InResponseTo/i.test(message)) return { event: 'saml_response_invalid', cause: 'unknown_request' };
  if (/issuer/i.test(message)) return { event: 'saml_response_invalid', cause: 'wrong_issuer' };
  if (/provider returned/i.test(message)) return { event: 'saml_response_invalid', cause: 'idp_status' };
  return { event: 'saml_response_invalid', cause: 'malformed' };
}
