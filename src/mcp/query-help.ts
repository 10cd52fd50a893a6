/**
 * The search language and time-range advice, written for a model that has never seen svc.
 * Tool descriptions embed these so each tool is usable on its own (DESIGN 6).
 */

export const QUERY_SYNTAX = `Query language (Splunk-like, case-insensitive terms):
- Terms and "exact phrases" match the message: \`timeout\`, \`"connection refused"\`. \`*\` matches everything; \`time*\` is a prefix wildcard.
- Field filters: \`status=500\` or \`status:500\`, \`host=web-*\`, comparisons \`duration_ms>1000\`, \`>=\`, \`<\`, \`<=\`, \`!=\`. Core fields: host, source, sourcetype, message, index, env; every other field comes from the event (nested JSON keys are dotted: \`http.status=404\`). A field the event does not store is looked for in its message at search time: known layouts (Apache/Nginx access logs give clientip, method, uri, status, bytes, useragent; syslog lines give program and pid; Java/Android/OpenStack logs give level and component), a JSON object in the message, and \`key=value\` pairs, so \`status=404 | stats count by clientip\` works on a plain-text access log.
- Boolean: \`AND\` (implicit between terms), \`OR\`, \`NOT\` or \`-term\`, parentheses: \`(error OR fatal) -healthcheck\`.
- Pipes after the filter: \`| stats count|sum(f)|avg(f)|min(f)|max(f)|dc(f)|values(f)|p50(f)|p95(f)|p99(f) ... by f1, f2\`, \`| timechart span=5m count by host\`, \`| top 10 url\`, \`| rare user\`, \`| where duration_ms > 500\`, \`| eval secs=duration_ms/1000\`, \`| rex field=message "user=(?<user>\\\\w+)"\`, \`| fields host, message\`, \`| table _time, host, status\`, \`| sort -count\`, \`| head 20\`, \`| tail 5\`, \`| dedup host\`, \`| eventstats avg(ms) as mean by host\`, \`| sort _time | streamstats window=5 avg(ms) as moving\` (running values over the events in their order, newest first unless sorted), \`| chart count over host by status\` (one column per status), \`| transaction session maxpause=5m startswith=login\` (one row per session: _time, duration, eventcount, message), \`| fillnull value=0 bytes\`, \`| fieldsummary\`, \`| patterns limit=20\` (the messages grouped into templates such as "Failed password for <*> from <*>" with count, first/last time and a sample; it must be the last pipe), \`| lookup users uid as user_id output name, team\` (an uploaded CSV table; values match as text, case-sensitively), \`| spath input=payload output=user user.name\` (JSON path), \`| kv field=detail\` (key=value pairs of another field), \`| extract "<ip> - - [<_>] \\"<method> <uri> <_>\\" <status>"\` (a pattern with <name> placeholders), \`| stats count by host | append [search error | stats count as count]\` (a subquery's rows after the current ones), \`| rename id.orig_h as src\`, \`| bin span=1h _time | stats count by _time, host\`.
Examples: \`error\`, \`level=error service=checkout\`, \`"payment declined" NOT test\`, \`status>=500 | stats count by host\`, \`* | stats count by index\`, \`sourcetype=nginx | top 10 uri\`.`;

export const TIME_ADVICE = `Time range: \`from\`/\`to\` take RFC 3339 (\`2026-01-31T12:00:00Z\`) or relative times (\`-15m\`, \`-1h\`, \`-24h\`, \`-7d\`, \`now\`; \`@\` snaps to a unit: \`-1d@d\` is the start of yesterday); absent means all time. Start with a recent window (e.g. from=-1h) and widen it when nothing matches: an empty answer is not an error, and its hint says how many events the env/index holds outside the range.`;

export const SCOPE_ADVICE = `Where: \`env\` selects the environment (default "default"; "*" = every environment you may read), \`index\` narrows to one index. Use list_environments and list_indexes to see what exists, discover_fields to learn field names before filtering on them.`;

export const SERVER_INSTRUCTIONS = `svc is a log search service. Events live in environments (env) and indexes; each has time, host, source, sourcetype, message and fields.
Typical investigation: list_environments → list_indexes → discover_fields (learn field names and common values) → histogram (when did it happen) → search (the events) or aggregate (counts by field) → get_event (one full record by the id a search returned).
${QUERY_SYNTAX}
${TIME_ADVICE}
${SCOPE_ADVICE}`;
