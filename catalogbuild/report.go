package catalogbuild

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// MainProviders are the 15 most used providers whose per-provider facts the report holds to a null target
// (Google counted twice: the Gemini API and Vertex AI).
var MainProviders = []string{"openai", "anthropic", "google-gemini", "google-vertex-ai", "azure-openai", "aws-bedrock",
	"mistral", "cohere", "groq", "cerebras", "together", "fireworks", "ai21", "xai", "deepseek", "perplexity"}

// PerProviderCatalogs are the catalogs with one or more records per provider whose null share the report gives
// for the main providers.
var PerProviderCatalogs = []string{"rate_limits", "sla", "data_retention", "security_certifications", "compliance",
	"free_tier", "batch_api", "guardrails", "regions", "error_codes", "fine_tuning"}

// applicability names, per catalog, the field that says whether the provider offers the feature at all: where it
// is false, the feature's other fields are not applicable, and the main-provider table leaves them out of their
// null share (they are null by design, not a gap in what the sources state). Where it is null, they count.
var applicability = map[string]string{
	"sla": "sla_available", "free_tier": "has_free_tier", "batch_api": "batch_api_available", "fine_tuning": "available",
}

// applicable strips from a record of catalog the fields that do not apply (see applicability).
func applicable(catalog string, r map[string]any) map[string]any {
	gate, ok := applicability[catalog]
	if !ok || r[gate] != false {
		return r
	}
	return map[string]any{"provider_id": r["provider_id"], gate: false}
}

type reportCatalog struct {
	AsOf    string `json:"as_of"`
	Sources []struct {
		ID   string `json:"id"`
		AsOf string `json:"as_of"`
	} `json:"sources"`
	Records []map[string]any `json:"records"`
}

// fieldPaths flattens a record into "field" and "object.field" leaves (arrays count as one leaf; an empty array
// counts as null, since it says nothing).
func fieldPaths(prefix string, m map[string]any, out map[string]bool) {
	for k, v := range m {
		p := prefix + k
		switch t := v.(type) {
		case map[string]any:
			fieldPaths(p+".", t, out)
		case []any:
			out[p] = len(t) > 0
		default:
			out[p] = v != nil
		}
	}
}

type nullShare struct {
	field      string
	nulls, all int
}

func nullShares(recs []map[string]any) []nullShare {
	counts := map[string]*nullShare{}
	for _, r := range recs {
		leaves := map[string]bool{}
		fieldPaths("", r, leaves)
		for f, set := range leaves {
			ns := counts[f]
			if ns == nil {
				ns = &nullShare{field: f}
				counts[f] = ns
			}
			ns.all++
			if !set {
				ns.nulls++
			}
		}
	}
	out := make([]nullShare, 0, len(counts))
	for _, ns := range counts {
		out = append(out, *ns)
	}
	slices.SortFunc(out, func(a, b nullShare) int { return strings.Compare(a.field, b.field) })
	return out
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(d))
}

// BuildReport writes REPORT.md from the built catalogs (name -> file bytes) and the build's report.
func BuildReport(files map[string][]byte, rep Report, facts OfficialFacts) ([]byte, error) {
	var b strings.Builder
	names := make([]string, 0, len(files))
	cats := map[string]*reportCatalog{}
	for n, data := range files {
		var c reportCatalog
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("report: %s: %w", n, err)
		}
		cats[n] = &c
		names = append(names, n)
	}
	slices.Sort(names)
	b.WriteString("# Catalog build report\n\nWritten by `make catalogs`; do not edit. For each catalog: records, the share of null per field, " +
		"records per confidence level, then every value the bounds rejected and every value the sources disputed. " +
		"Unknown is null: a null share is a gap in what the sources state, not a default.\n\n")
	b.WriteString("## Main providers: null share of the per-provider catalogs\n\n")
	b.WriteString("Over the records of " + strings.Join(MainProviders, ", ") + " (target: at most 20% per field). " +
		"Where a provider does not offer the feature at all (`sla_available`, `has_free_tier`, `batch_api_available`, " +
		"`available` of fine-tuning false), the feature's other fields do not apply and are left out of their share; " +
		"null cells is the share of all the catalog's values that are null.\n\n")
	b.WriteString("| catalog | records | null cells | fields over 20% null | worst field |\n|---|---|---|---|---|\n")
	for _, n := range PerProviderCatalogs {
		c := cats[n]
		if c == nil {
			continue
		}
		var recs []map[string]any
		for _, r := range c.Records {
			if id, _ := r["provider_id"].(string); slices.Contains(MainProviders, id) {
				recs = append(recs, applicable(n, r))
			}
		}
		over, worst, worstShare, nulls, cells := 0, "-", -1.0, 0, 0
		for _, ns := range nullShares(recs) {
			nulls, cells = nulls+ns.nulls, cells+ns.all
			share := float64(ns.nulls) / float64(ns.all)
			if share > 0.2 {
				over++
			}
			if share > worstShare {
				worst, worstShare = fmt.Sprintf("%s (%s)", ns.field, pct(ns.nulls, ns.all)), share
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %s |\n", n, len(recs), pct(nulls, cells), over, worst)
	}
	b.WriteString("\n## Main providers: newest model and newest source\n\n" +
		"The newest model is the one with the latest launch date in `model_lifecycle` that is not retired; the newest " +
		"source is the latest `as_of` among the sources that the provider's pricing and model records cite.\n\n" +
		"| provider | newest model (launch) | newest source |\n|---|---|---|\n")
	for _, pid := range MainProviders {
		model, launch := "unknown", ""
		if c := cats["model_lifecycle"]; c != nil {
			for _, r := range c.Records {
				if r["provider_id"] != pid {
					continue
				}
				st, _ := r["stage"].(string)
				l, _ := r["launch_date"].(string)
				id, _ := r["model_id"].(string)
				if st == "sunset" || l == "" {
					continue
				}
				if l > launch || (l == launch && id < model) {
					model, launch = id, l
				}
			}
		}
		newest := ""
		for _, n := range []string{"pricing", "models"} {
			c := cats[n]
			if c == nil {
				continue
			}
			dates := map[string]string{}
			for _, s := range c.Sources {
				dates[s.ID] = s.AsOf
			}
			for _, r := range c.Records {
				if r["provider_id"] != pid {
					continue
				}
				srcs, _ := r["sources"].([]any)
				for _, id := range srcs {
					if d := dates[fmt.Sprint(id)]; d > newest {
						newest = d
					}
				}
			}
		}
		if launch != "" {
			model = fmt.Sprintf("`%s` (%s)", model, launch)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", pid, model, newest)
	}
	b.WriteString("\n## Catalogs\n")
	for _, n := range names {
		c := cats[n]
		fmt.Fprintf(&b, "\n### %s\n\n%d records, as of %s, %d sources.", n, len(c.Records), c.AsOf, len(c.Sources))
		conf := map[string]int{}
		for _, r := range c.Records {
			if s, ok := r["confidence"].(string); ok {
				conf[s]++
			}
		}
		if len(conf) > 0 {
			var parts []string
			for _, l := range []string{ConfidenceVerified, ConfidenceAgreed, ConfidenceSingle, ConfidenceDisputed} {
				parts = append(parts, fmt.Sprintf("%s %d", l, conf[l]))
			}
			b.WriteString(" Confidence: " + strings.Join(parts, ", ") + ".")
		}
		b.WriteString("\n\n| field | null |\n|---|---|\n")
		for _, ns := range nullShares(c.Records) {
			if ns.field == "sources" || ns.field == "confidence" {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s |\n", ns.field, pct(ns.nulls, ns.all))
		}
	}
	b.WriteString("\n## Facts looked for and not found\n\nFor the main providers' curated per-provider records: each field left null, " +
		"what was looked for and where.\n\n| provider | catalog | field | looked for |\n|---|---|---|---|\n")
	writeFieldNotes(&b, facts, func(c CatalogFacts) map[string]string { return c.Unknown })
	b.WriteString("\n## Reading notes for reviewers\n\nHow some curated facts were read (page versions and editions that " +
		"disagree); kept out of the served notes.\n\n| provider | catalog | field | note |\n|---|---|---|---|\n")
	writeFieldNotes(&b, facts, func(c CatalogFacts) map[string]string { return c.Review })
	fmt.Fprintf(&b, "\n## Retired with the model they follow (%d)\n\nAn alias whose snapshot, or a host's spelling whose maker's model, "+
		"is shut down, and whose own provider lists no schedule for it: out of pricing and models, `sunset` in the lifecycle catalogs.\n\n", len(rep.Followed))
	for _, f := range rep.Followed {
		fmt.Fprintf(&b, "- `%s`\n", f)
	}
	fmt.Fprintf(&b, "\n## Rejected values (%d)\n\nKept out of the catalogs by the bounds; the field is null instead.\n\n", len(rep.Rejected))
	b.WriteString("| catalog | provider | model | field | value | why |\n|---|---|---|---|---|---|\n")
	for _, r := range rep.Rejected {
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s | %s |\n", r.Catalog, r.Provider, r.Model, r.Field, r.Value, r.Reason)
	}
	fmt.Fprintf(&b, "\n## Disputed values (%d)\n\nTwo or more data sets disagree by more than 2%%.\n\n", len(rep.Disputed))
	b.WriteString("| catalog | provider | model | field | values | outcome |\n|---|---|---|---|---|---|\n")
	for _, d := range rep.Disputed {
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s | %s |\n", d.Catalog, d.Provider, d.Model, d.Field, strings.Join(d.Values, ", "), d.Outcome)
	}
	fmt.Fprintf(&b, "\n## Model IDs held to the providers' official lists (%d)\n\nIDs a data set gives a provider that its "+
		"API does not accept as spelled (lists: the official model-ID lists in sources/upstream, named in catalogbuild.APIModelFiles, with the providers' lifecycle pages). "+
		"A list of one family (Vertex AI's Llama models) judges only the IDs of that family. "+
		"mapped: the data now sits under the API's own ID; dropped: not served; unlisted: the list is partial, so "+
		"the ID is kept and named here.\n\n", len(rep.IDChecks))
	b.WriteString("| provider | model | outcome | official ID | why |\n|---|---|---|---|---|\n")
	for _, x := range rep.IDChecks {
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", x.Provider, x.Model, x.Outcome, x.Target, x.Why)
	}
	fmt.Fprintf(&b, "\n## Aliases priced as their model (%d)\n\nAliases a provider's page names as another API name of "+
		"a model (the `aliases` of sources/official/lifecycle): a data set's price for the alias is not used, since it "+
		"may be an older model's; the alias takes its model's price record, or none where the model has no price.\n\n", len(rep.Aliases))
	b.WriteString("| provider | alias | model | price |\n|---|---|---|---|\n")
	for _, a := range rep.Aliases {
		fmt.Fprintf(&b, "| %s | `%s` | `%s` | %s |\n", a.Provider, a.Alias, a.Model, a.Outcome)
	}
	fmt.Fprintf(&b, "\n## Reviewer notes on the curated lifecycle files (%d)\n\nHow a fact was found or why it "+
		"is null; not served.\n\n| provider | model | note |\n|---|---|---|\n", len(rep.Reviews))
	for _, r := range rep.Reviews {
		fmt.Fprintf(&b, "| %s | `%s` | %s |\n", r.Provider, r.Model, strings.ReplaceAll(r.Note, "|", "/"))
	}
	return []byte(b.String()), nil
}

// writeFieldNotes writes one table row per provider, catalog and field of the notes notes picks from the curated
// facts (what was looked for, how a fact was read), in key order.
func writeFieldNotes(b *strings.Builder, facts OfficialFacts, notes func(CatalogFacts) map[string]string) {
	for _, pid := range sortedKeys(facts) {
		f := facts[pid]
		for _, cat := range sortedKeys(f.Catalogs) {
			n := notes(f.Catalogs[cat])
			for _, field := range sortedKeys(n) {
				fmt.Fprintf(b, "| %s | %s | %s | %s |\n", pid, cat, field, strings.ReplaceAll(n[field], "|", "/"))
			}
		}
	}
}
