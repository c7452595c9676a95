package derive

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "thinking_support", Build: buildThinkingSupport})
}

// Values of default_behavior.
const (
	thinkingOptIn       = "opt_in"        // off unless the request turns it on
	thinkingAlwaysOn    = "always_on"     // cannot be turned off
	thinkingOnByDefault = "on_by_default" // on unless the request turns it off
)

// thinkingOf derives one model's reasoning support:
//   - thinking_supported: models.dev reasoning, else litellm supports_reasoning, else null;
//   - thinking_visible: the API rule's, else true when models.dev names the response field the reasoning comes back
//     in (interleaved.field), else null;
//   - thinking_cost_per_1m: litellm output_cost_per_reasoning_token, else models.dev cost.reasoning, else the
//     model's output price in pricing.json where the API bills reasoning as output tokens, else null;
//   - budget_configurable and budget_param: a token budget or effort levels in models.dev reasoning_options (an
//     on/off toggle alone is not a budget), else the parameter the API rule gives every reasoning model;
//   - default_behavior: opt_in for APIs where thinking is requested; for APIs that reason by default, always_on when
//     reasoning cannot be turned off (no toggle, no "none" effort, no zero budget) and the rule's default otherwise.
//
// A model without reasoning has every other field false or null.
func thinkingOf(m capabilityModel, outputPrice *float64) api.ThinkingSupportRecord {
	rec := api.ThinkingSupportRecord{ProviderId: m.Model.ProviderId, ModelId: m.Model.ModelId, ThinkingSupported: m.reasoningSupport()}
	why := []string{reasoningSource(m)}
	if rec.ThinkingSupported == nil || !*rec.ThinkingSupported {
		if rec.ThinkingSupported != nil {
			rec.ThinkingVisible, rec.BudgetConfigurable = ptrTo(false), ptrTo(false)
		}
		return thinkingNotes(rec, "", why)
	}
	r := capabilityRuleFor(m.Model.ProviderId, m.Model.ModelId)
	url := ""
	if r != nil {
		url = r.ThinkingURL
		if r.ThinkingParam != "" {
			rec.ThinkingParam = ptrTo(r.ThinkingParam)
		}
	}
	rec.ThinkingVisible, why = thinkingVisibility(m, r, why)
	rec.ThinkingCostPer1m, why = thinkingCost(m, r, outputPrice, why)
	rec.BudgetConfigurable, rec.BudgetParam, why = thinkingBudget(m, r, why)
	rec.DefaultBehavior = thinkingDefault(m, r)
	return thinkingNotes(rec, url, why)
}

func thinkingNotes(rec api.ThinkingSupportRecord, url string, why []string) api.ThinkingSupportRecord {
	rec.Notes = capabilityNotes(url, why...)
	return rec
}

func reasoningSource(m capabilityModel) string {
	if v := m.devFlag("reasoning"); v != nil {
		return fmt.Sprintf("reasoning per models.dev reasoning=%t", *v)
	}
	if v := m.liteFlag("supports_reasoning"); v != nil {
		return fmt.Sprintf("reasoning per litellm supports_reasoning=%t", *v)
	}
	return "reasoning support not stated by models.dev or litellm"
}

func thinkingVisibility(m capabilityModel, r *capabilityRule, why []string) (*bool, []string) {
	if r != nil && r.Visible != nil {
		return r.Visible, append(why, "visible: "+r.VisibleNote)
	}
	if il, ok := m.ModelsDev["interleaved"].(map[string]any); ok {
		if field, ok := il["field"].(string); ok && field != "" {
			return ptrTo(true), append(why, "visible: returned in the "+field+" field (models.dev interleaved)")
		}
	}
	return nil, append(why, "visibility not confirmed")
}

func thinkingCost(m capabilityModel, r *capabilityRule, outputPrice *float64, why []string) (*float64, []string) {
	if v, ok := m.LiteLLM["output_cost_per_reasoning_token"].(float64); ok {
		return capabilityFloat(capabilityRound9(v * 1e6)), append(why, "cost: litellm output_cost_per_reasoning_token")
	}
	if c, ok := m.ModelsDev["cost"].(map[string]any); ok {
		if v, ok := c["reasoning"].(float64); ok {
			return capabilityFloat(capabilityRound9(v)), append(why, "cost: models.dev cost.reasoning")
		}
	}
	if r != nil && r.BilledAsOutput && outputPrice != nil {
		return outputPrice, append(why, "cost: billed as output tokens, so the output price of /pricing")
	}
	return nil, append(why, "cost of thinking tokens not confirmed")
}

func thinkingBudget(m capabilityModel, r *capabilityRule, why []string) (*bool, *string, []string) {
	opts := m.reasoningOptions()
	param := func(p string) *string {
		if p == "" {
			return nil
		}
		return ptrTo(p)
	}
	var effortParam, budgetParam, allParam string
	if r != nil {
		effortParam, budgetParam, allParam = r.EffortParam, r.BudgetParam, r.AllBudgetParam
	}
	switch {
	case capabilityHasOption(opts, "budget_tokens"):
		return ptrTo(true), param(budgetParam), append(why, "budget: a token budget per models.dev reasoning_options")
	case capabilityHasOption(opts, "effort"):
		return ptrTo(true), param(effortParam), append(why, "budget: effort levels per models.dev reasoning_options")
	case allParam != "":
		return ptrTo(true), param(allParam), append(why, "budget: "+allParam+" applies to every reasoning model of the API")
	case len(opts) > 0:
		return ptrTo(false), nil, append(why, "budget: models.dev lists only an on/off toggle")
	}
	return nil, nil, append(why, "budget control not confirmed")
}

func thinkingDefault(m capabilityModel, r *capabilityRule) *string {
	switch {
	case r == nil:
		return nil
	case r.OptIn:
		return ptrTo(thinkingOptIn)
	case !r.OnByDefault:
		return nil
	}
	off := canTurnOffThinking(m)
	switch {
	case off == nil:
		return nil
	case !*off:
		return ptrTo(thinkingAlwaysOn)
	case r.SwitchableDefault != "":
		return ptrTo(r.SwitchableDefault)
	}
	return nil
}

// canTurnOffThinking tells whether a request can switch reasoning off: a toggle, a "none" effort level or a
// budget that can be zero in models.dev, or litellm's supports_none_reasoning_effort; nil when neither source lists
// the reasoning options.
func canTurnOffThinking(m capabilityModel) *bool {
	if v := m.liteFlag("supports_none_reasoning_effort"); v != nil && *v {
		return ptrTo(true)
	}
	opts := m.reasoningOptions()
	for _, o := range opts {
		if o.Type == "toggle" || slices.Contains(o.Values, "none") || (o.Type == "budget_tokens" && o.Min != nil && *o.Min == 0) {
			return ptrTo(true)
		}
	}
	if len(opts) > 0 || m.liteFlag("supports_none_reasoning_effort") != nil {
		return ptrTo(false)
	}
	return nil
}

func capabilityHasOption(opts []capabilityReasoningOption, kind string) bool {
	return slices.ContainsFunc(opts, func(o capabilityReasoningOption) bool { return o.Type == kind })
}

// capabilityRound9 rounds a price to 9 significant digits, which removes the float noise of per-token x 1e6.
func capabilityRound9(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 9, 64), 64)
	return r
}

func buildThinkingSupport(in *Input) (*Catalog, error) {
	models, err := capabilityCurrentModels(in)
	if err != nil {
		return nil, err
	}
	prices, err := Records[seeds.PricingRecord](in, seeds.CatalogPricing)
	if err != nil {
		return nil, err
	}
	output := map[string]*float64{}
	for _, p := range prices {
		output[p.ProviderId+"/"+p.Model] = p.Pricing.OutputPer1mTokens
	}
	recs := make([]api.ThinkingSupportRecord, len(models))
	for i, m := range models {
		recs[i] = thinkingOf(m, output[m.Model.ProviderId+"/"+m.Model.ModelId])
	}
	sources, asOf, err := capabilitySources(in, capabilityPages(models, func(r *capabilityRule) string { return r.ThinkingURL }))
	if err != nil {
		return nil, err
	}
	// Output prices come from pricing.json: its sources (genai-prices among them) are this catalog's too.
	pc, err := in.Catalog(seeds.CatalogPricing)
	if err != nil {
		return nil, err
	}
	for _, s := range pc.Sources {
		if !slices.ContainsFunc(sources, func(have seeds.Source) bool { return have.URL == s.URL }) {
			sources = append(sources, s)
		}
	}
	return &Catalog{AsOf: max(asOf, pc.AsOf), Sources: sources, Records: recs}, nil
}
