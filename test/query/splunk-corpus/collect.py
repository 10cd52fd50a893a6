#!/usr/bin/env python3
"""How searches.jsonl and macros.jsonl were built (README.md beside it): run once, by hand.

    python3 collect.py CLONES_DIR        (needs PyYAML)

CLONES_DIR holds a git clone (bare or not) of each source as `owner+name` (or `owner+name/repo`),
with the pinned commit below. Writes searches.jsonl and macros.jsonl next to this file and prints
how many searches each step kept. Python, not TypeScript: the sources are YAML and Splunk .conf,
and this is a one-off tool, not part of svc or its tests.
"""
import collections, hashlib, json, os, re, subprocess, sys
import xml.etree.ElementTree as ET
import yaml

# owner/name: (pinned commit, licence, short name used in ids and scopes)
SOURCES = {
    'splunk/security_content': ('b13b314aed0e1778335a55620474e7d27289a20a', 'Apache-2.0', 'escu'),
    'gjanders/SplunkAdmins': ('3ea8ab55468a124892b32b19d9ac686aff959c73', 'Apache-2.0', 'splunkadmins'),
    'MHaggis/sysmon-splunk-app': ('5c6e54e869f2b536c482c3534a16835725b44386', 'MIT', 'sysmon-app'),
    'CrossRealms/Splunk-Cyences-App-for-Splunk': ('a838c5175e03fb583169c95d4bb32be80eaec2bd', 'MIT', 'cyences'),
    'HurricaneLabs/brokenhosts': ('bef889c747e1c14e2ed2f83601d77ca28ec0aee8', 'MIT', 'brokenhosts'),
    'ZachChristensen28/pihole_dns_app': ('dac16dcba89d13ae871b56294215a8cb088ba810', 'MIT', 'pihole'),
    'PaloAltoNetworks/Splunk-Apps': ('ae653b335e633895c1dcc796139d0c21c4c34696', 'ISC', 'paloalto'),
}
# share of each pool kept (by sha1 of the id), to stay under 1 MB; pools not named are kept whole
FRACTION = {'escu/detection': 0.24, 'splunkadmins/saved': 0.34, 'cyences/saved': 0.4, 'cyences/dashboard': 0.55}
# dashboard form tokens ($host$) and security_content investigation placeholders (={src_ip}): not runnable as written
TOKEN = re.compile(r'\$[A-Za-z_][^$\s"]*\$|=\{\w+\}')
# a dashboard query opening with a pipe that only reshapes results works on the dashboard's global search
FRAGMENT = re.compile(r'^\|\s*(fields|dedup|sort|table|rename|where|eval)\b')
# contentctl builds every detection's <name>_filter macro as "search *" (the filter users edit)
FILTER = dict(name='*_filter', args=[], definition='search *',
              source='splunk/contentctl builds every detection\'s <name>_filter macro as "search *"')
# Splunk's CIM app (not one of the sources) defines it; security_content's datamodel searches all call it
CIM = dict(name='drop_dm_object_name', args=['object'], definition='rename $object$.* AS *',
           source="Splunk Common Information Model app's definition, quoted (not in the sources above)")


class Repo:
    def __init__(self, root, full):
        owner_name = full.replace('/', '+')
        path = os.path.join(root, owner_name)
        self.path = os.path.join(path, 'repo') if os.path.isdir(os.path.join(path, 'repo')) else path
        self.commit, self.licence, self.short = SOURCES[full]
        self.full = full

    def git(self, *args):
        return subprocess.run(['git', '-C', self.path, *args], capture_output=True, text=True, check=True).stdout

    def files(self):
        return [f for f in self.git('ls-tree', '-r', '--name-only', self.commit).split('\n') if f]

    def show(self, path):
        return self.git('show', f'{self.commit}:{path}')

    def source(self, path):
        return f'{self.full}@{self.commit[:12]}:{path}'


def parse_conf(text):
    """Splunk .conf: [stanza] then key = value; a backslash at the end of a line continues the value."""
    out, cur, lines, i = {}, None, text.split('\n'), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        s = line.strip()
        if not s or s.startswith('#') or s.startswith(';'):
            continue
        m = re.match(r'^\[(.*)\]\s*$', s)
        if m and not line.startswith(' '):
            cur = m.group(1)
            out.setdefault(cur, {})
            continue
        m = re.match(r'^([^=]+?)\s*=\s?(.*)$', line)
        if cur is None or not m:
            continue
        key, val = m.group(1).strip(), m.group(2)
        while val.endswith('\\') and i < len(lines):
            val = val[:-1] + '\n' + lines[i]
            i += 1
        out[cur][key] = val
    return out


def slug(s):
    return re.sub(r'[^a-z0-9]+', '_', s.lower()).strip('_')


def app_of(repo, path):
    # one scope per app: a repository holding several apps (paloalto) keeps their macros apart
    if repo.short == 'paloalto' and '/default/' in path:
        return repo.short + '/' + path.split('/default/')[0].rsplit('/', 1)[-1]
    return repo.short


def candidates(repo):
    """Every search of the repository: security_content's YAML `search:`, savedsearches.conf, dashboards."""
    out = []
    for f in repo.files():
        if repo.short == 'escu':
            top = f.split('/')[0]
            if top in ('detections', 'baselines', 'investigations') and f.endswith('.yml') and '/deprecated/' not in f:
                d = yaml.safe_load(repo.show(f))
                if isinstance(d, dict) and d.get('search'):
                    out.append(dict(id=f'escu/{f[:-4]}', source=repo.source(f), kind=top[:-1], scope='escu',
                                    search=d['search'].strip()))
        elif f.endswith('default/savedsearches.conf'):
            for stanza, kv in parse_conf(repo.show(f)).items():
                if kv.get('search', '').strip():
                    out.append(dict(id=f'{repo.short}/saved/{slug(stanza)}', source=f'{repo.source(f)} [{stanza}]',
                                    kind='saved', scope=app_of(repo, f), search=kv['search'].strip()))
        elif re.search(r'default/data/ui/views/[^/]+\.xml$', f):
            root = ET.fromstring(repo.show(f))
            # a <search base="…"> holds a post-process fragment of another search, not a whole search
            qs = [q for s in root.iter('search') if not s.get('base') for q in s.findall('query')]
            qs += [q for tag in ('searchString', 'searchTemplate') for q in root.iter(tag)]
            view = f.rsplit('/', 1)[1][:-4]
            for i, q in enumerate(qs):
                if (q.text or '').strip() and not FRAGMENT.match(q.text.strip()):
                    out.append(dict(id=f'{repo.short}/view/{view}/{i}', source=f'{repo.source(f)} <query> #{i}',
                                    kind='dashboard', scope=app_of(repo, f), search=q.text.strip()))
    return out


def macros(repo):
    out = []
    for f in repo.files():
        if repo.short == 'escu' and f.startswith('macros/') and f.endswith('.yml'):
            d = yaml.safe_load(repo.show(f))
            out.append(dict(scope='escu', name=d['name'], args=d.get('arguments') or [],
                            definition=str(d['definition']), source=repo.source(f)))
        elif f.endswith('default/macros.conf'):
            for stanza, kv in parse_conf(repo.show(f)).items():
                if 'definition' not in kv:
                    continue
                m = re.match(r'^(.*)\((\d+)\)$', stanza)
                out.append(dict(scope=app_of(repo, f), name=m.group(1) if m else stanza,
                                args=[a.strip() for a in kv.get('args', '').split(',') if a.strip()],
                                definition=kv['definition'], source=f'{repo.source(f)} [{stanza}]',
                                iseval=kv.get('iseval', '0').strip() not in ('0', 'false', '')))
    return out


class Unresolved(Exception):
    pass


def split_args(s):
    args, cur, quoted, depth, i = [], '', False, 0, 0
    while i < len(s):
        c = s[i]
        if c == '\\' and quoted and i + 1 < len(s):
            cur += s[i:i + 2]
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif not quoted and c == '(':
            depth += 1
        elif not quoted and c == ')':
            depth -= 1
        elif not quoted and depth == 0 and c == ',':
            args.append(cur.strip())
            cur, i = '', i + 1
            continue
        cur += c
        i += 1
    return args + [cur.strip()]


def lookup(table, name, n):
    m = table.get((name, n))
    if m is None and name.endswith('_filter') and ('*_filter', n) in table:
        m = table[('*_filter', n)]
    return m


def expand(s, table, used, depth=0):
    """The same expansion as test/helpers/splunk-corpus.ts's expandMacros; raises Unresolved."""
    if depth > 20:
        raise Unresolved('nesting')
    out, i = [], 0
    while i < len(s):
        if s.startswith('```', i):
            j = s.find('```', i + 3)
            if j < 0:
                raise Unresolved('unclosed comment')
            out.append(s[i:j + 3])
            i = j + 3
        elif s[i] == '"':
            j = i + 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == '\\' else 1
            out.append(s[i:j + 1])
            i = j + 1
        elif s[i] == '`':
            j = s.find('`', i + 1)
            if j < 0:
                raise Unresolved('unclosed backtick')
            m = re.match(r'^([\w.:-]+)\s*(?:\((.*)\))?$', s[i + 1:j].strip(), re.S)
            if not m:
                raise Unresolved('unreadable call')
            args = [] if m.group(2) is None or not m.group(2).strip() else split_args(m.group(2))
            args = [expand(a, table, used, depth + 1) for a in args]
            mac = lookup(table, m.group(1), len(args))
            if mac is None or mac.get('iseval'):
                raise Unresolved(f'{m.group(1)}({len(args)})')
            used.add((mac['name'], len(args)))
            d = mac['definition']
            for a, v in zip(mac['args'], args):
                d = d.replace(f'${a}$', v)
            out.append(expand(d, table, used, depth + 1))
            i = j + 1
        else:
            out.append(s[i])
            i += 1
    return ''.join(out)


def share(id_):
    return int(hashlib.sha1(id_.encode()).hexdigest()[:8], 16) / 0xffffffff


def main(root):
    here = os.path.dirname(os.path.abspath(__file__))
    repos = [Repo(root, full) for full in SOURCES]
    tables = collections.defaultdict(dict)
    for r in repos:
        for m in macros(r):
            tables[m['scope']][(m['name'], len(m['args']))] = m
    tables['escu'][('*_filter', 0)] = FILTER
    for t in tables.values():
        t.setdefault(('drop_dm_object_name', 1), CIM)
    stats, out, seen, used = collections.Counter(), [], set(), collections.defaultdict(set)
    for r in repos:
        for c in candidates(r):
            key = f"{c['scope'].split('/')[0]}/{c['kind']}"
            stats[key, '0 found'] += 1
            if TOKEN.search(c['search']):
                stats[key, '1 has form tokens'] += 1
                continue
            u = set()
            try:
                expanded = expand(c['search'], tables[c['scope']], u)
            except Unresolved:
                stats[key, '2 macro not in its source'] += 1
                continue
            norm = ' '.join(expanded.split())
            if norm in seen:
                stats[key, '3 duplicate'] += 1
                continue
            seen.add(norm)
            if share(c['id']) >= FRACTION.get(key, 1.0):
                stats[key, '4 not sampled'] += 1
                continue
            stats[key, '5 kept'] += 1
            out.append(c)
            used[c['scope']] |= u
    assert len({c['id'] for c in out}) == len(out), 'ids must be unique'
    with open(os.path.join(here, 'searches.jsonl'), 'w') as f:
        for c in out:
            f.write(json.dumps(c, ensure_ascii=False) + '\n')
    with open(os.path.join(here, 'macros.jsonl'), 'w') as f:
        for scope in sorted(used):
            for name, n in sorted(used[scope]):
                m = tables[scope][(name, n)]
                f.write(json.dumps(dict(scope=scope, name=name, args=m['args'], definition=m['definition'],
                                        source=m['source']), ensure_ascii=False) + '\n')
    for (key, step), n in sorted(stats.items()):
        print(f'{key:28} {step:28} {n:5}')
    print('searches', len(out))


if __name__ == '__main__':
    main(sys.argv[1])
