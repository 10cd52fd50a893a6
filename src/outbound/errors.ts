/** A destination svc may not reach: its address is not public and SVC_OUTBOUND_ALLOW does not name it. */
export class OutboundRefused extends Error {
  override readonly name = 'OutboundRefused';

  constructor(
    readonly host: string,
    readonly address: string,
    /** ipaddr.js's name of the range: `loopback`, `private`, `linkLocal`, `uniqueLocal`, … */
    readonly range: string,
  ) {
    super(
      `${host === address ? address : `${host} (${address})`} is not a public address (${range}); svc does not send there unless SVC_OUTBOUND_ALLOW allows it`,
    );
  }
}

/** A call that failed on svc's side of the rules: a timeout, an answer over the cap, a bad URL. */
export class OutboundFailure extends Error {
  override readonly name = 'OutboundFailure';

  constructor(
    readonly reason: 'timeout' | 'too_large' | 'invalid_url' | 'invalid_answer' | 'unreachable',
    message: string,
  ) {
    super(message);
  }
}
