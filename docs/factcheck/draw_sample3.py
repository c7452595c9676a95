"""Draws the third fact-check sample (issue 36, item 10) from the served catalogs.

Run from the repository root: python3 docs/factcheck/draw_sample3.py > docs/factcheck/sample3-2026-11-28.txt

Same strata, sizes and provider set as draw_sample2.py (22 prices: task llm, input price set, live model, two per
provider with providers shuffled; 10 rate-limit tiers; 12 lifecycle records: 7 non-active and 5 active; 18 trust
facts), a new seed, and everything the first two samples named left out:
- a fact whose kind, provider and key match one of sample-2026-11-28.json or sample2-2026-11-28.json;
- in the price and lifecycle strata, any model ID either sample named as a price or lifecycle fact, under any
  provider (stricter than draw_sample2.py, which left out the same provider and model only).
As in the second draw, a trust field with fewer remaining values than its quota gives what it has, and the
shortfall is drawn from a fixed pool of other non-null trust fields of the same five catalogs.
"""
import json
import random

random.seed(20261130)
MAIN = ["openai", "anthropic", "google-gemini", "google-vertex-ai", "azure-openai", "aws-bedrock", "mistral", "cohere",
        "groq", "cerebras", "together", "fireworks", "ai21", "xai", "deepseek", "perplexity"]


def L(n):
    return json.load(open(f'seeds/catalogs/{n}.json'))['records']


earlier = (json.load(open('docs/factcheck/sample-2026-11-28.json')) +
           json.load(open('docs/factcheck/sample2-2026-11-28.json')))
seen = {(f['kind'], f['provider_id'], f['key']) for f in earlier}
seen_models = {f['key'] for f in earlier if f['kind'] in ('price', 'lifecycle')}

dep = {(r['provider_id'], r['model_id']): r for r in L('deprecations')}
life = {(r['provider_id'], r['model_id']): r for r in L('model_lifecycle')}


def live(pid, model):
    d, m = dep.get((pid, model)), life.get((pid, model))
    return (d is None or d['status'] != 'sunset') and (m is None or m['stage'] != 'sunset')


facts = []

pr = [r for r in L('pricing')
      if r['provider_id'] in MAIN and r['task'] == 'llm' and r['pricing']['input_per_1m_tokens'] is not None
      and live(r['provider_id'], r['model']) and r['model'] not in seen_models]
byp = {}
for r in pr:
    byp.setdefault(r['provider_id'], []).append(r)
provs = sorted(byp)
random.shuffle(provs)
picked = []
for p in provs:
    picked += random.sample(byp[p], min(2, len(byp[p])))
for r in picked[:22]:
    p = r['pricing']
    facts.append(('price', r['provider_id'], r['model'],
                  f"in {p['input_per_1m_tokens']} out {p['output_per_1m_tokens']} cached {p['cached_input_per_1m_tokens']}",
                  r['sources'], r['confidence']))

rl = [r for r in L('rate_limits') if r['provider_id'] in MAIN and any(v is not None for v in r['limits'].values())
      and ('rate_limit', r['provider_id'], r['tier']) not in seen]
for r in random.sample(rl, min(10, len(rl))):
    facts.append(('rate_limit', r['provider_id'], r['tier'],
                  json.dumps({k: v for k, v in r['limits'].items() if v is not None}), r['sources'], r['confidence']))

d = [r for r in L('deprecations') if r['provider_id'] in MAIN and ('lifecycle', r['provider_id'], r['model_id']) not in seen
     and r['model_id'] not in seen_models]
sun = [r for r in d if r['status'] != 'active']
act = [r for r in d if r['status'] == 'active']
for r in random.sample(sun, 7) + random.sample(act, 5):
    facts.append(('lifecycle', r['provider_id'], r['model_id'],
                  f"{r['status']} sunset {r['sunset_date']} repl {r['replacement_model']}", r['sources'], r['confidence']))


def pool(cat, field):
    return [(cat, field, r) for r in L(cat) if r['provider_id'] in MAIN and r.get(field) is not None
            and ('trust:' + cat, r['provider_id'], field) not in seen]


def add_trust(cat, field, r):
    facts.append(('trust:' + cat, r['provider_id'], field, json.dumps(r[field]), r.get('sources'), r.get('confidence')))


short = 0
for cat, field, n in [('sla', 'guaranteed_uptime_pct', 4), ('data_retention', 'retention_period_days', 4),
                      ('compliance', 'hipaa_baa_available', 3), ('regions', 'eu_available', 3),
                      ('batch_api', 'discount_pct', 4)]:
    rs = pool(cat, field)
    for c, f, r in random.sample(rs, min(n, len(rs))):
        add_trust(c, f, r)
    short += max(0, n - len(rs))

extra = []
for cat, field in [('sla', 'max_credit_pct'), ('data_retention', 'zero_data_retention_available'),
                   ('data_retention', 'trained_on_api_data'), ('compliance', 'soc2_type'), ('compliance', 'iso27001'),
                   ('compliance', 'dpa_available'), ('batch_api', 'typical_turnaround_hours'),
                   ('batch_api', 'max_batch_size')]:
    extra += pool(cat, field)
for c, f, r in random.sample(extra, short):
    add_trust(c, f, r)

for i, f in enumerate(facts, 1):
    print(i, *f, sep=' | ')
print(len(facts))
