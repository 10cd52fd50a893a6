/**
 * The host of a log line that starts with a syslog header, as syslog daemons write their files
 * (`Dec 10 06:55:46 LabSZ sshd[24200]: …`, rsyslog's `2024-05-01T10:00:00.123+02:00 web-1 app: …`):
 * the word after the time. After a BSD time (`Mmm dd hh:mm:ss`, syslog's own) it is the host
 * whatever follows, as syslog-ng reads a file; after an ISO time only when a program tag
 * (`name:` or `name[pid]:`) follows it, since many applications start their lines with an ISO
 * time and a level (`2024-05-01 10:00:00 INFO …`). Splunk's
 * syslog source type takes the host from there; svc does the same for text sent to an ingest path
 * that names no host, so `stats count by host` of a shipped /var/log file is not one empty row.
 * The message stays whole; the program and pid are found at search time (query/extract).
 */
const BSD = /^[A-Z][a-z]{2} [ 0-3]\d \d\d:\d\d:\d\d(?:\.\d{1,9})? /;
const ISO = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)? /;
/** A host name or address, then more text. */
const HOST = /^([A-Za-z0-9][\w.-]{0,254}|[0-9a-fA-F:]+) +\S/;
/** host, then a tag: a program of no space, `[` or `:` (may hold parentheses: `sshd(pam_unix)`), an optional [pid], a colon and a space. */
const HOST_TAG = /^([A-Za-z0-9][\w.-]{0,254}|[0-9a-fA-F:]+) +[^\s[:]{1,128}(?:\[\d{1,10}\])?: /;

export function syslogHeaderHost(line: string): string | undefined {
  // fast path: a header starts with a capital letter (a month) or a digit (a year)
  const c = line.charCodeAt(0);
  if (!((c >= 65 && c <= 90) || (c >= 48 && c <= 57))) return undefined;
  const bsd = BSD.exec(line);
  const time = bsd ?? ISO.exec(line);
  if (!time) return undefined;
  const m = (bsd ? HOST : HOST_TAG).exec(line.slice(time[0].length));
  return m ? m[1] : undefined;
}
