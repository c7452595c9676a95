package derive

import (
	"cmp"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/gen/api"
)

func init() {
	Register(Deriver{Name: "tool_call_format", Build: buildToolCallFormat})
}

// toolCallFormatAsOf is the date the official pages behind the tool-call rules were checked: every value of this
// catalog is hand-curated from them (models.json only says which providers and models to cover).
const toolCallFormatAsOf = "2026-11-22"

func toolCallFormatOf(provider string, model *string, r *capabilityRule) api.ToolCallFormatRecord {
	var unknown []string
	if r.ParallelToolCalls == nil {
		unknown = append(unknown, "parallel calls")
	}
	if r.StrictRoleOrdering == nil {
		unknown = append(unknown, "strict role ordering")
	}
	why := ""
	if len(unknown) > 0 {
		why = strings.Join(unknown, " and ") + " not confirmed"
	}
	return api.ToolCallFormatRecord{
		ProviderId: provider, ModelId: model, RoleOrder: r.RoleOrder, ToolCallRole: r.ToolCallRole,
		ToolResultRole: r.ToolResultRole, ToolResultContentKey: r.ToolResultKey, ParallelToolCalls: r.ParallelToolCalls,
		StrictRoleOrdering: r.StrictRoleOrdering, ToolSchemaFormat: r.ToolSchemaFormat,
		Notes: capabilityNotes(r.ToolsURL, r.Name+". "+r.ToolsNote, why),
	}
}

// toolCallFormatRecords gives one provider-wide record (model_id null) to every provider of the current language
// models whose API has one tool-call format for all its models, and one record per model on a platform whose
// format depends on the model (Vertex AI: Gemini and Claude models; its other partner models are left out, as are
// providers whose format is not confirmed here).
func toolCallFormatRecords(models []capabilityModel) []api.ToolCallFormatRecord {
	var out []api.ToolCallFormatRecord
	done := map[string]bool{}
	for _, m := range models {
		p := m.Model.ProviderId
		if r := capabilityRuleFor(p, ""); r != nil {
			if !done[p] {
				out = append(out, toolCallFormatOf(p, nil, r))
				done[p] = true
			}
			continue
		}
		if r := capabilityRuleFor(p, m.Model.ModelId); r != nil {
			out = append(out, toolCallFormatOf(p, ptrTo(m.Model.ModelId), r))
		}
	}
	slices.SortFunc(out, func(a, b api.ToolCallFormatRecord) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), compareNullFirst(a.ModelId, b.ModelId))
	})
	return out
}

// compareNullFirst orders optional strings: nil first, then ascending.
func compareNullFirst(a, b *string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return strings.Compare(*a, *b)
}

func buildToolCallFormat(in *Input) (*Catalog, error) {
	models, err := capabilityCurrentModels(in)
	if err != nil {
		return nil, err
	}
	sources, _, err := capabilitySources(in, capabilityPages(models, func(r *capabilityRule) string { return r.ToolsURL }))
	if err != nil {
		return nil, err
	}
	// The values are the official pages'; models.dev and litellm only list the models, so they are not sources.
	return &Catalog{AsOf: toolCallFormatAsOf, Sources: sources[2:], Records: toolCallFormatRecords(models)}, nil
}
