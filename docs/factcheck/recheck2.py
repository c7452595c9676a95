"""Re-reads each fact of a sample file (sample2-2026-11-28.json by default, or the one named) from the current
seeds/catalogs and prints what is served now.

Run from the repository root: python3 docs/factcheck/recheck2.py [docs/factcheck/sample3-2026-11-28.json]. One line
per fact: n, verdict, served then, served now, confidence now.
"""
import json
import sys

L = lambda n: json.load(open(f'seeds/catalogs/{n}.json'))['records']


def served_now(kind, pid, key):
    if kind == 'price':
        for r in L('pricing'):
            if r['provider_id'] == pid and r['model'] == key:
                p = r['pricing']
                return (f"in {p['input_per_1m_tokens']} out {p['output_per_1m_tokens']} cached {p['cached_input_per_1m_tokens']}",
                        r['confidence'])
        return None
    if kind == 'rate_limit':
        for r in L('rate_limits'):
            if r['provider_id'] == pid and r['tier'] == key:
                return json.dumps({k: v for k, v in r['limits'].items() if v is not None}), r['confidence']
        return None
    if kind == 'lifecycle':
        for r in L('deprecations'):
            if r['provider_id'] == pid and r['model_id'] == key:
                return f"{r['status']} sunset {r['sunset_date']} repl {r['replacement_model']}", r['confidence']
        return None
    if kind.startswith('limit:'):
        for r in L('models'):
            if r['provider_id'] == pid and r['model_id'] == key:
                return json.dumps(r.get(kind.split(':', 1)[1])), r['confidence']
        return None
    cat = kind.split(':', 1)[1]
    for r in L(cat):
        if r['provider_id'] == pid:
            return json.dumps(r.get(key)), r.get('confidence')
    return None


if __name__ == '__main__':
    sample = sys.argv[1] if len(sys.argv) > 1 else 'docs/factcheck/sample2-2026-11-28.json'
    for f in json.load(open(sample)):
        now = served_now(f['kind'], f['provider_id'], f['key'])
        print(f['n'], f['verdict'], '|', f['served'], '=>', now[0] if now else 'NOT SERVED', '|', now[1] if now else '')
