package derive

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "model_versions", Build: buildModelVersions})
}

// versionSuffixRE splits a pinned version ID into its base name and version suffix: -YYYY-MM-DD (OpenAI),
// -YYYYMMDD or @YYYYMMDD (Anthropic, Vertex AI), -MM-DD (dated previews), -NNN or @NNN (numbered stable
// versions such as Gemini's -001), or -NNNN (four digits: OpenAI's MMDD, Mistral's YYMM).
var versionSuffixRE = regexp.MustCompile(`^(.+?)(?:-([0-9]{4}-[0-9]{2}-[0-9]{2})|[-@]([0-9]{8})|-([0-9]{2}-[0-9]{2})|[-@]([0-9]{3})|-([0-9]{4}))$`)

// parsedVersion is a pinned version ID split by versionSuffixRE.
type parsedVersion struct {
	base string
	// date is the whole date the suffix spells, or "".
	date string
	// fourDigit marks a -NNNN suffix, a version only where fourDigitVersions says so.
	fourDigit bool
}

// parseVersion splits a version ID; ok is false when it has no version suffix.
func parseVersion(id string) (v parsedVersion, ok bool) {
	m := versionSuffixRE.FindStringSubmatch(id)
	if m == nil {
		return v, false
	}
	v.base = m[1]
	switch {
	case m[2] != "":
		v.date = m[2]
	case m[3] != "":
		v.date = m[3][:4] + "-" + m[3][4:6] + "-" + m[3][6:]
	case m[6] != "":
		v.fourDigit = true
	}
	return v, true
}

// fourDigitVersions tells where a four-digit suffix is a snapshot of the undated name: OpenAI (gpt-4-0613) and
// Azure OpenAI's GPT models (MMDD), Mistral (mistral-large-2411, YYMM). Elsewhere four digits name a separate
// checkpoint of an open model (DeepSeek-R1-0528, Kimi-K2-Instruct-0905), not a version the undated name floats
// to; they still count as versions of a "<base>-latest" alias.
func fourDigitVersions(providerID, base string) bool {
	switch providerID {
	case "openai", "mistral":
		return true
	case "azure-openai":
		return strings.HasPrefix(base, "gpt-")
	}
	return false
}

// aliasGroups maps each alias of one provider's model IDs to its pinned versions. A pinned version belongs to
// the alias "<base>" when that ID exists, else to "<base>-latest" when that exists; an ID ending in "-latest"
// is an alias even without versions. Documented pointers add their alias and version.
func aliasGroups(providerID string, ids []string) map[string][]string {
	exists := make(map[string]bool, len(ids))
	for _, id := range ids {
		exists[id] = true
	}
	groups := map[string][]string{}
	for _, id := range ids {
		if strings.HasSuffix(id, "-latest") {
			if _, ok := groups[id]; !ok {
				groups[id] = nil
			}
		}
		v, ok := parseVersion(id)
		if !ok {
			continue
		}
		candidates := []string{v.base, v.base + "-latest"}
		if v.fourDigit && !fourDigitVersions(providerID, v.base) {
			candidates = candidates[1:]
		}
		for _, alias := range candidates {
			if exists[alias] && alias != id {
				groups[alias] = append(groups[alias], id)
				break
			}
		}
	}
	for key, p := range documentedPointers {
		pid, alias, _ := strings.Cut(key, "/")
		if pid != providerID || !exists[alias] || !exists[p.Version] || slices.Contains(groups[alias], p.Version) {
			continue
		}
		groups[alias] = append(groups[alias], p.Version)
	}
	return groups
}

// versionsOf lists an alias's versions newest first: by release date (unknown last), then ID descending. The
// release date is models.dev's release_date, else the date the version ID spells.
func versionsOf(providerID string, ids []string, facts map[string]catalogbuild.SourceFacts) ([]api.ModelVersionsVersion, error) {
	type dated struct {
		id   string
		date *string
	}
	list := make([]dated, 0, len(ids))
	for _, id := range ids {
		v := dated{id, lifecycleReleaseDate(facts[providerID+"/"+id])}
		if p, _ := parseVersion(id); v.date == nil && p.date != "" {
			v.date = ptrTo(p.date)
		}
		list = append(list, v)
	}
	slices.SortFunc(list, func(a, b dated) int {
		switch {
		case a.date == nil && b.date != nil:
			return 1
		case a.date != nil && b.date == nil:
			return -1
		case a.date != nil && *a.date != *b.date:
			return strings.Compare(*b.date, *a.date)
		}
		return strings.Compare(b.id, a.id)
	})
	out := make([]api.ModelVersionsVersion, len(list))
	for i, v := range list {
		day, err := optionalDate(v.date)
		if err != nil {
			return nil, fmt.Errorf("%s/%s release date: %w", providerID, v.id, err)
		}
		out[i] = api.ModelVersionsVersion{VersionId: v.id, ReleaseDate: day}
	}
	return out, nil
}

// pointerOf is the documented version an alias points to, or nil.
func pointerOf(providerID, alias string) *string {
	if p, ok := documentedPointers[providerID+"/"+alias]; ok {
		return ptrTo(p.Version)
	}
	return nil
}

// modelVersionRecords derives the alias records of every provider's current language models.
func modelVersionRecords(models []seeds.ModelRecord, facts map[string]catalogbuild.SourceFacts, official map[string]*catalogbuild.LifecycleFile) ([]api.ModelVersionsRecord, error) {
	byProvider := map[string][]string{}
	for _, m := range models {
		byProvider[m.ProviderId] = append(byProvider[m.ProviderId], m.ModelId)
	}
	var recs []api.ModelVersionsRecord
	for pid, ids := range byProvider {
		for alias, versions := range aliasGroups(pid, ids) {
			vs, err := versionsOf(pid, versions, facts)
			if err != nil {
				return nil, err
			}
			r := api.ModelVersionsRecord{
				ProviderId: pid, Alias: alias, AliasAutoUpdates: true, CurrentPinnedVersion: pointerOf(pid, alias),
				Pinnable: len(versions) > 0, Versions: vs, BreakingChanges: []string{},
			}
			if u, ok := lifecyclePolicyURLs[pid]; ok {
				r.LifecyclePolicyUrl = ptrTo(u)
			}
			r.Sources, r.Confidence = aliasSources(pid, alias, versions, facts, official[pid]), api.Confidence(catalogbuild.ConfidenceSingle)
			recs = append(recs, r)
		}
	}
	slices.SortFunc(recs, func(a, b api.ModelVersionsRecord) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.Alias, b.Alias))
	})
	return recs, nil
}

// aliasSources are the sources that name an alias or its versions: the data sets and the provider's pages listing
// them, and the provider's model page when it states what the alias points to. The grouping is a rule over those IDs, so the record is
// single.
func aliasSources(pid, alias string, versions []string, facts map[string]catalogbuild.SourceFacts, official *catalogbuild.LifecycleFile) []string {
	var out []string
	for _, id := range append([]string{alias}, versions...) {
		if cur := official.CurrentModel(id); cur != nil {
			out = append(out, cur.Sources...)
		}
		f := facts[pid+"/"+id]
		if f.LiteLLM != nil {
			out = append(out, catalogbuild.SourceLiteLLM)
		}
		if f.ModelsDev != nil {
			out = append(out, catalogbuild.SourceModelsDev)
		}
	}
	if p, ok := documentedPointers[pid+"/"+alias]; ok {
		out = append(out, catalogbuild.SourceID(catalogbuild.Source{URL: p.URL}))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// modelVersionSources are the sources of the alias catalogs: the model catalog's, and the pages cited.
func modelVersionSources(in *Input) (string, []seeds.Source, error) {
	src, err := in.Catalog(seeds.CatalogModels)
	if err != nil {
		return "", nil, err
	}
	sources := slices.Clone(src.Sources)
	sources = append(sources,
		seeds.Source{Name: "OpenAI: Models (aliases and snapshots)", URL: catalogbuild.OpenAIModelsURL},
		seeds.Source{Name: "Anthropic: Models overview (aliases and snapshots)", URL: catalogbuild.AnthropicModelsURL})
	return src.AsOf, sources, nil
}

func buildModelVersions(in *Input) (*Catalog, error) {
	models, facts, err := currentModelFacts(in)
	if err != nil {
		return nil, err
	}
	asOf, sources, err := modelVersionSources(in)
	if err != nil {
		return nil, err
	}
	lf, err := in.lifecycle()
	if err != nil {
		return nil, err
	}
	recs, err := modelVersionRecords(models, facts, lf.files)
	if err != nil {
		return nil, fmt.Errorf("model versions: %w", err)
	}
	return &Catalog{AsOf: asOf, Sources: withCitedPages(sources, recs, lf.files), Records: recs}, nil
}

// withCitedPages adds to sources the provider pages the records cite that the model catalog does not list (a
// current model's price page, say): every id a record cites must name one of the catalog's sources.
func withCitedPages(sources []seeds.Source, recs []api.ModelVersionsRecord, files map[string]*catalogbuild.LifecycleFile) []seeds.Source {
	known := map[string]bool{}
	for _, s := range sources {
		id := s.ID
		if id == "" {
			id = catalogbuild.SourceID(catalogbuild.Source{Name: s.Name, URL: s.URL})
		}
		known[id] = true
	}
	for _, r := range recs {
		for _, id := range r.Sources {
			if known[id] {
				continue
			}
			if p, ok := files[r.ProviderId].Page(id); ok {
				sources = append(sources, officialPageSource(p))
				known[id] = true
			}
		}
	}
	return sources
}
