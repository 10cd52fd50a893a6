/**
 * Names of inputs whose values are secrets (a password, a token, an API key, a webhook URL, which
 * for Slack-style hooks is itself the credential). A validation message names such a field but
 * never quotes its value: an error answer, a client's log or svc's own log would otherwise hold it.
 * Errs towards hiding: a harmless field that matches only loses the echo of its value.
 */
const SECRET_NAME = /pass(word|phrase)?|secret|token|api_?key|credential|private|webhook|cookie|authori[sz]ation/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** True when any part of a field's path (`destinations.0.webhook`) names a secret. */
export function isSecretPath(path: readonly (string | number)[]): boolean {
  return path.some((k) => typeof k === 'string' && isSecretName(k));
}
