package catalogbuild

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// dataSetIDs names the upstream data sets by the URL their catalog sources carry.
var dataSetIDs = []struct{ url, id string }{
	{"https://github.com/BerriAI/litellm", SourceLiteLLM},
	{"https://github.com/anomalyco/models.dev", SourceModelsDev},
	{"https://github.com/pydantic/genai-prices", SourceGenAI},
	{"https://github.com/JonathanChavezTamales/llm-leaderboard", SourceLLMStats},
	{"https://github.com/openai/simple-evals", SourceSimpleEvals},
	{"https://github.com/embeddings-benchmark", "mteb"},
	{"https://www.npmjs.com/package/@pydantic/genai-prices", "genai-prices-npm"},
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

// SourceID is a source's stable id: the data set's short name, or a slug of an official page's host and path.
func SourceID(s Source) string {
	for _, d := range dataSetIDs {
		if strings.HasPrefix(s.URL, d.url) {
			return d.id
		}
	}
	u, err := url.Parse(s.URL)
	raw := s.URL
	if err == nil {
		raw = strings.TrimPrefix(u.Host, "www.") + u.Path
	}
	id := strings.Trim(slugRE.ReplaceAllString(strings.ToLower(raw), "-"), "-")
	if len(id) > 60 {
		id = strings.TrimRight(id[:60], "-")
	}
	if id == "" {
		id = "source"
	}
	return id
}

// provEnvelope is a catalog file with its records kept as they are written.
type provEnvelope struct {
	AsOf    string            `json:"as_of"`
	Sources []Source          `json:"sources"`
	Records []json.RawMessage `json:"records"`
}

// encode writes the file as the build writes every catalog: 2-space indent, HTML characters unescaped, a final
// newline, and each record's keys in the order they came.
func (env provEnvelope) encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return nil, err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, buf.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return pretty.Bytes(), nil
}

// ProviderNames maps provider IDs to display names; WithProvenance uses them to tell which of a catalog's
// official pages belong to a record's provider.
type ProviderNames map[string]string

// WithProvenance gives every source of a catalog file an id, and every record that has none its `sources` and
// `confidence`:
//   - sources: the catalog's sources whose URL the record itself cites (a source_url, an sla_url, a URL in its
//     notes); else, for a per-provider record, the sources whose name or URL names its provider; else the
//     catalog's data sets (what a rule that found nothing read); else every source of the catalog;
//   - confidence: `verified` when every cited source is a provider's own page (no license) and the record names no
//     data set (models.dev, litellm, genai-prices, llm-stats) as the ground of a value, else `single`.
//
// Records that carry their own provenance (pricing and models, settled value by value) are left as they are.
// Field order and formatting are kept, so the output of a file already processed is the same bytes.
func WithProvenance(data []byte, providers ProviderNames, perModel map[string][]string) ([]byte, error) {
	var env provEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for i := range env.Sources {
		if env.Sources[i].ID == "" {
			id := SourceID(env.Sources[i])
			for n := 2; used[id]; n++ {
				id = fmt.Sprintf("%s-%d", strings.TrimRight(SourceID(env.Sources[i]), "-0123456789"), n)
			}
			env.Sources[i].ID = id
		}
		if used[env.Sources[i].ID] {
			return nil, fmt.Errorf("source id %q repeated", env.Sources[i].ID)
		}
		used[env.Sources[i].ID] = true
	}
	// Looked up once per file, not per record: a catalog of many records costs one pass over its sources each.
	licensed := map[string]bool{}
	for _, s := range env.Sources {
		if s.License != nil {
			licensed[s.ID] = true
		}
	}
	byProvider := map[string][]string{}
	for i, raw := range env.Records {
		var rec map[string]any
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, err
		}
		if _, ok := rec["sources"]; ok {
			continue
		}
		ids, fromDataSet := citedSources(rec, env.Sources, providers, byProvider, perModel)
		conf := ConfidenceVerified
		for _, id := range ids {
			if licensed[id] {
				conf = ConfidenceSingle
			}
		}
		if fromDataSet {
			// The record says a value rests on a data set (or on the data sets' silence): an official page it
			// cites for the rest does not make that value verified.
			conf = ConfidenceSingle
		}
		extra, _ := json.Marshal(struct {
			Sources    []string `json:"sources"`
			Confidence string   `json:"confidence"`
		}{ids, conf})
		trimmed := bytes.TrimRight(raw, " \n\t")
		if len(trimmed) < 2 || trimmed[len(trimmed)-1] != '}' {
			return nil, fmt.Errorf("record %d is not an object", i)
		}
		sep := []byte(",")
		if bytes.Equal(bytes.TrimSpace(trimmed[:len(trimmed)-1]), []byte("{")) {
			sep = nil
		}
		out := append(append(append(slices.Clone(trimmed[:len(trimmed)-1]), sep...), extra[1:len(extra)-1]...), '}')
		env.Records[i] = out
	}
	return env.encode()
}

// citesURL reports whether text names the address itself, not only a longer address it begins
// (https://developers.openai.com/api/docs/models inside .../docs/models/gpt-4o cites the model page, not the models
// page): the character after it ends the address (a space, a bracket, a quote, a comma, or a full stop that ends
// the sentence), or the address goes on to the page's Markdown version (.md, .md.txt).
func citesURL(text, url string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], url)
		if i < 0 {
			return false
		}
		end := from + i + len(url)
		if end == len(text) || urlEnds(text[end:]) {
			return true
		}
		from += i + 1
	}
}

func urlEnds(rest string) bool {
	if strings.HasPrefix(rest, ".md") {
		return true // the page's Markdown version (rate-limits.md, models.md.txt) is the same page
	}
	switch c := rest[0]; {
	case c == '.' || c == ',' || c == ';' || c == ':':
		return len(rest) == 1 || strings.ContainsRune(" \n)\"'", rune(rest[1]))
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.ContainsRune("-_/#?&=%~+", rune(c)):
		return false
	}
	return true
}

// DataSetNames maps the third-party data sets' source ids to the names records' notes call them by: the derivers
// write these names, and WithProvenance reads a record that names one as resting on that data set.
var DataSetNames = map[string]string{SourceModelsDev: "models.dev", SourceLiteLLM: "litellm", SourceGenAI: "genai-prices",
	SourceLLMStats: "llm-stats"}

// citedSources picks a record's sources (see WithProvenance), sorted, and reports whether the record's text names
// a data set its values rest on. Such a record also cites the data sets that list its model, where it is about
// one. byProvider keeps the official pages found to name each provider, for the next records of the same provider.
func citedSources(rec map[string]any, sources []Source, providers ProviderNames, byProvider, perModel map[string][]string) ([]string, bool) {
	var text []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			text = append(text, t)
		case []any:
			for _, x := range t {
				walk(x)
			}
		case map[string]any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(rec)
	all := strings.Join(text, "\n")
	var ids []string
	for _, s := range sources {
		if s.URL != "" && citesURL(all, s.URL) {
			ids = append(ids, s.ID)
		}
	}
	lower := strings.ToLower(all)
	fromDataSet := false
	for _, n := range DataSetNames {
		fromDataSet = fromDataSet || strings.Contains(lower, n)
	}
	pid, _ := rec["provider_id"].(string)
	mid, _ := rec["model_id"].(string)
	if mid == "" {
		mid, _ = rec["model"].(string) // audio_pricing and a few others name the model "model"
	}
	if fromDataSet && len(ids) > 0 && perModel != nil {
		for _, id := range perModel[pid+"/"+mid] {
			if i := slices.IndexFunc(sources, func(s Source) bool { return s.ID == id }); i >= 0 && sources[i].License != nil {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 && perModel != nil {
		// A record of one model that cites no page rests on the data sets that list that model (its rule reads
		// their fields), not on every source of the catalog, most of which never mention it.
		for _, id := range perModel[pid+"/"+mid] {
			if slices.ContainsFunc(sources, func(s Source) bool { return s.ID == id }) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		if pid, _ := rec["provider_id"].(string); pid != "" {
			named, ok := byProvider[pid]
			if !ok {
				for _, s := range sources {
					if s.License == nil && namesProvider(s, pid, providers[pid]) {
						named = append(named, s.ID)
					}
				}
				byProvider[pid] = named
			}
			ids = append(ids, named...)
		}
	}
	if len(ids) == 0 {
		// A rule that found nothing for the provider read the data sets, not the other providers' pages: it cites
		// the data sets where the catalog has any, else every source.
		for _, s := range sources {
			if s.License != nil {
				ids = append(ids, s.ID)
			}
		}
	}
	if len(ids) == 0 {
		for _, s := range sources {
			ids = append(ids, s.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), fromDataSet
}

// namesProvider reports whether an official page's name or URL names the provider (its ID or the first word of
// its display name, such as "anthropic" or "mistral").
func namesProvider(s Source, id, name string) bool {
	hay := strings.ToLower(s.Name + " " + s.URL)
	keys := []string{strings.ToLower(id)}
	if f := strings.Fields(strings.ToLower(name)); len(f) > 0 && len(f[0]) > 2 && f[0] != "google" {
		keys = append(keys, strings.Trim(f[0], "()"))
	}
	for _, part := range strings.Split(strings.ToLower(id), "-") {
		if len(part) > 3 && part != "google" && part != "openai" {
			keys = append(keys, part)
		}
	}
	for _, k := range keys {
		if k != "" && strings.Contains(hay, k) {
			return true
		}
	}
	return false
}
