"""Draws a stratified fact-check sample (issue 36, item 10) from the served catalogs.

Run from the repository root: python3 docs/factcheck/draw_strata.py SEED EARLIER.json... > sampleN.txt
The fourth sample: python3 docs/factcheck/draw_strata.py 20261201 sample-2026-11-28.json sample2-2026-11-28.json
sample3-2026-11-28.json (on the catalogs of 5d7c535); the fifth: seed 20261202 and the four earlier samples; the
sixth: seed 20261203 and the five earlier samples.

The same 16 provider IDs as the earlier draws, a new seed, and everything the earlier samples named left out
(a fact whose kind, provider and key match one of them; in the price, lifecycle and model-limit strata, any model ID
any of them named as a price or lifecycle fact, under any provider). The earlier samples used up the rate-limit
tiers (one unsampled tier with a value is left) and the five primary trust fields, so the strata are:
- up to 24 prices: task llm, input price set, live model (neither its deprecations nor its model_lifecycle record says
  sunset); two per provider, providers shuffled (fewer where a provider has fewer unsampled prices left);
- every rate-limit tier left (1);
- 14 lifecycle records of `deprecations`: 7 non-active, 7 active;
- 10 model limits of `models` (live llm models): 6 context windows, 4 output limits;
- 14 trust facts from the fixed pool of other trust fields of the earlier draws plus four more
  (`batch_api_available`, `has_free_tier`, `caching_supported`, `gdpr_compliant`).
"""
import json
import random
import sys

random.seed(int(sys.argv[1]))
MAIN = ["openai", "anthropic", "google-gemini", "google-vertex-ai", "azure-openai", "aws-bedrock", "mistral", "cohere",
        "groq", "cerebras", "together", "fireworks", "ai21", "xai", "deepseek", "perplexity"]
EARLIER = sys.argv[2:]


def L(n):
    return json.load(open(f'seeds/catalogs/{n}.json'))['records']


earlier = [f for name in EARLIER for f in json.load(open('docs/factcheck/' + name))]
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
for r in picked[:24]:
    p = r['pricing']
    facts.append(('price', r['provider_id'], r['model'],
                  f"in {p['input_per_1m_tokens']} out {p['output_per_1m_tokens']} cached {p['cached_input_per_1m_tokens']}",
                  r['sources'], r['confidence']))
picked_models = {r['model'] for r in picked[:24]}

rl = [r for r in L('rate_limits') if r['provider_id'] in MAIN and any(v is not None for v in r['limits'].values())
      and ('rate_limit', r['provider_id'], r['tier']) not in seen]
for r in rl:
    facts.append(('rate_limit', r['provider_id'], r['tier'],
                  json.dumps({k: v for k, v in r['limits'].items() if v is not None}), r['sources'], r['confidence']))

d = [r for r in L('deprecations') if r['provider_id'] in MAIN and ('lifecycle', r['provider_id'], r['model_id']) not in seen
     and r['model_id'] not in seen_models and r['model_id'] not in picked_models]
sun = [r for r in d if r['status'] != 'active']
act = [r for r in d if r['status'] == 'active']
for r in random.sample(sun, 7) + random.sample(act, 7):
    facts.append(('lifecycle', r['provider_id'], r['model_id'],
                  f"{r['status']} sunset {r['sunset_date']} repl {r['replacement_model']}", r['sources'], r['confidence']))
taken = picked_models | {f[2] for f in facts if f[0] == 'lifecycle'}

ms = [r for r in L('models') if r['provider_id'] in MAIN and r['task'] == 'llm' and live(r['provider_id'], r['model_id'])
      and r['model_id'] not in seen_models and r['model_id'] not in taken]
cw = [r for r in ms if r['context_window'] is not None]
mo = [r for r in ms if r['max_output_tokens'] is not None]
for r in random.sample(cw, 6):
    facts.append(('limit:context_window', r['provider_id'], r['model_id'], json.dumps(r['context_window']), r['sources'],
                  r['confidence']))
    taken.add(r['model_id'])
for r in random.sample([r for r in mo if r['model_id'] not in taken], 4):
    facts.append(('limit:max_output_tokens', r['provider_id'], r['model_id'], json.dumps(r['max_output_tokens']),
                  r['sources'], r['confidence']))


def pool(cat, field):
    return [(cat, field, r) for r in L(cat) if r['provider_id'] in MAIN and r.get(field) is not None
            and ('trust:' + cat, r['provider_id'], field) not in seen]


extra = []
for cat, field in [('sla', 'max_credit_pct'), ('data_retention', 'zero_data_retention_available'),
                   ('data_retention', 'trained_on_api_data'), ('compliance', 'soc2_type'), ('compliance', 'iso27001'),
                   ('compliance', 'dpa_available'), ('batch_api', 'typical_turnaround_hours'),
                   ('batch_api', 'max_batch_size'), ('batch_api', 'batch_api_available'), ('free_tier', 'has_free_tier'),
                   ('prompt_caching', 'caching_supported'), ('compliance', 'gdpr_compliant')]:
    extra += pool(cat, field)
# At least 60 facts: where fewer prices are left than the strata ask (the sixth draw: Cohere has one unsampled
# price), the trust stratum takes up the difference. The earlier draws reached 60 without it.
n_trust = max(14, 60 - len(facts))
for c, f, r in random.sample(extra, n_trust):
    facts.append(('trust:' + c, r['provider_id'], f, json.dumps(r[f]), r.get('sources'), r.get('confidence')))

for i, f in enumerate(facts, 1):
    print(i, *f, sep=' | ')
print(len(facts))
