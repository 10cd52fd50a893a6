/**
 * Names of values that are secrets, by their last words (camelCase, kebab or snake): password,
 * clientSecret, api-key, access_token, SVC_LLM_API_KEY. One rule for what svc records
 * (selflog/redact.ts) and what it answers or prints (validation errors, settings at start).
 */
const SECRET_KEY =
  /(^|_)(pass|password|passwd|passphrase|secret|token|api_?key|authorization|auth_header|bearer|cookie|private_key|credentials|jwt)$/;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(
    key
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/-/g, '_')
      .toLowerCase(),
  );
}

/**
 * A field a validation message names without quoting its value: a secret by name, or a webhook
 * URL (a Slack-style hook is its own credential). True when any part of its path is one
 * (`destinations.0.webhook`).
 */
export function isSecretPath(path: readonly (string | number)[]): boolean {
  return path.some((k) => typeof k === 'string' && (isSecretKey(k) || /webhook/i.test(k)));
}
