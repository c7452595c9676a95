"""Re-reads each fact of sample-2026-11-28.json from the current seeds/catalogs and prints what is served now.

Run from the repository root: python3 docs/factcheck/recheck.py. It prints one line per fact (n, first verdict,
served then, served now, confidence now, sources now, and the status of the newest pass recorded in the JSON); the
"after fixes" and "second pass" statuses in the JSON were set from this output. With --changed it prints only the
facts whose served value, confidence or sources differ from what the newest pass recorded.
"""
import sys
import json

L = lambda n: json.load(open(f'seeds/catalogs/{n}.json'))['records']


def served_now(f):
    kind, pid, key = f['kind'], f['provider_id'], f['key']
    if kind == 'price':
        for r in L('pricing'):
            if r['provider_id'] == pid and r['model'] == key:
                p = r['pricing']
                return (f"in {p['input_per_1m_tokens']} out {p['output_per_1m_tokens']} cached {p['cached_input_per_1m_tokens']}",
                        r['confidence'], r['sources'])
        return None
    if kind == 'rate_limit':
        for r in L('rate_limits'):
            if r['provider_id'] == pid and r['tier'] == key:
                return (json.dumps({k: v for k, v in r['limits'].items() if v is not None}), r['confidence'], r['sources'])
        return None
    if kind == 'lifecycle':
        for r in L('deprecations'):
            if r['provider_id'] == pid and r['model_id'] == key:
                return (f"{r['status']} sunset {r['sunset_date']} repl {r['replacement_model']}", r['confidence'], r['sources'])
        return None
    cat = kind.split(':', 1)[1]
    for r in L(cat):
        if r['provider_id'] == pid:
            return (json.dumps(r.get(key)), r.get('confidence'), r.get('sources'))
    return None


def newest_pass(f):
    """The newest recorded pass of a fact: second pass, else after fixes."""
    return f.get('second_pass') or f.get('after_fixes') or {}


if __name__ == '__main__':
    changed_only = '--changed' in sys.argv[1:]
    for f in json.load(open('docs/factcheck/sample-2026-11-28.json')):
        now = served_now(f)
        last = newest_pass(f)
        if changed_only and 'sources_now' in last and (now[0] if now else None, now[1] if now else None, now[2] if now else None) == (
                last.get('served_now'), last.get('confidence_now'), last.get('sources_now')):
            continue
        print(f['n'], f['verdict'], '|', f['served'], '=>', now[0] if now else 'NOT SERVED', '|', now[1] if now else '', '|',
              now[2] if now else '', '|', last.get('status', ''))
