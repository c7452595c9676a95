import json,random
random.seed(20261128)
main=["openai","anthropic","google-gemini","google-vertex-ai","azure-openai","aws-bedrock","mistral","cohere","groq","cerebras","together","fireworks","ai21","xai","deepseek","perplexity"]
L=lambda n: json.load(open(f'seeds/catalogs/{n}.json'))['records']
dep={(r['provider_id'],r['model_id']):r for r in L('deprecations')}
facts=[]
pr=[r for r in L('pricing') if r['provider_id'] in main and r['task']=='llm' and r['pricing']['input_per_1m_tokens'] is not None and dep.get((r['provider_id'],r['model']),{}).get('status') in ('active','warning','deprecated',None)]
# spread across providers
byp={}
for r in pr: byp.setdefault(r['provider_id'],[]).append(r)
provs=sorted(byp); random.shuffle(provs)
picked=[]
for p in provs:
  picked+=random.sample(byp[p],min(2,len(byp[p])))
picked=picked[:22]
for r in picked:
  facts.append(('price',r['provider_id'],r['model'],f"in {r['pricing']['input_per_1m_tokens']} out {r['pricing']['output_per_1m_tokens']} cached {r['pricing']['cached_input_per_1m_tokens']}",r['sources'],r['confidence']))
rl=[r for r in L('rate_limits') if r['provider_id'] in main and any(v is not None for v in r['limits'].values())]
for r in random.sample(rl,min(10,len(rl))):
  facts.append(('rate_limit',r['provider_id'],r['tier'],json.dumps({k:v for k,v in r['limits'].items() if v is not None}),r['sources'],r['confidence']))
d=[r for r in L('deprecations') if r['provider_id'] in main]
sun=[r for r in d if r['status']!='active']; act=[r for r in d if r['status']=='active']
for r in random.sample(sun,7)+random.sample(act,5):
  facts.append(('lifecycle',r['provider_id'],r['model_id'],f"{r['status']} sunset {r['sunset_date']} repl {r['replacement_model']}",r['sources'],r['confidence']))
def pick(cat,field,n):
  rs=[r for r in L(cat) if r['provider_id'] in main and r.get(field) is not None]
  for r in random.sample(rs,min(n,len(rs))):
    facts.append(('trust:'+cat,r['provider_id'],field,json.dumps(r[field]),r.get('sources'),r.get('confidence')))
pick('sla','guaranteed_uptime_pct',4)
pick('data_retention','retention_period_days',4)
pick('compliance','hipaa_baa_available',3)
pick('regions','eu_available',3)
pick('batch_api','discount_pct',4)
for i,f in enumerate(facts,1): print(i,*f,sep=' | ')
print(len(facts))
