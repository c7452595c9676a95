package seeds

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// retrievalNarration matches served text that tells how a fact was retrieved instead of stating it: stored or
// verbatim copies and their file ids in a search index, which translation or mirror was read, what was (not)
// legible in it. The phrases are the ones the curated data used before the notes were rewritten (issue 36,
// item 6). Notes state the fact, the page and the check date; how a page was read goes to REPORT.md (the
// curated files' `review` and `unknown`).
var retrievalNarration = regexp.MustCompile(`(?i)\bcop(?:y|ies)\b|\bverbatim\b|\bfile ids?\b|\bsearch[- ]index\b|` +
	`\bthe index\b|\bindex does not name\b|\brepository not named\b|\bfind_string\b|\bread_file\b|` +
	`\btranslation read\b|\b[a-z]{2}-[a-z]{2,4} translation\b|\blegible\b|\bmirror\b|\bexcerpts?\b|` +
	`\bstored (?:export|versions?|revisions?|material)\b|\bas read in\b|\bread in full\b|\b(?:revision|version) read\b`)

// narrationWords are literal words every alternative of retrievalNarration contains: a cheap test first, as the
// catalogs hold tens of megabytes of text.
var narrationWords = []string{"cop", "verbatim", "file id", "index", "repository", "find_string", "read_file",
	"translation", "legible", "mirror", "excerpt", "stored", "read in", "sion read"}

// narrates returns the first narration phrase of s, "" when there is none.
func narrates(s string) string {
	l := strings.ToLower(s)
	if !slices.ContainsFunc(narrationWords, func(w string) bool { return strings.Contains(l, w) }) {
		return ""
	}
	return retrievalNarration.FindString(s)
}

func TestRetrievalNarrationPattern(t *testing.T) {
	for _, s := range []string{
		"Read from a stored verbatim copy of the page's Markdown version (search-index file id 70633688276)",
		"zh-Hans translation read in full",
		"BerriAI/litellm (via the RoCry/llm-api-price mirror, 2026-07-24)",
		"the per-model tables were not legible in the stored copy consulted",
		"Earlier stored versions of the same page stated a 25% discount",
		"as read in a stored copy that lists 504",
		"whose repository the index does not name",
	} {
		if narrates(s) == "" {
			t.Errorf("not caught: %q", s)
		}
	}
	for _, s := range []string{
		"Batch files are retained 30 days (your-data page).",
		"Whisper audio transcription/translation; /v1/audio/translations",
		"stored completions and stored responses persist until deleted",
		"As gpt-4-turbo (its snapshot).",
		"Vector Search indexes and Genie spaces",
		"Official Firecrawl MCP server (scrape, crawl, search, extract)",
	} {
		if m := narrates(s); m != "" {
			t.Errorf("fact taken for narration: %q (matched %q)", s, m)
		}
	}
}

// TestServedTextStatesFacts walks every string of every served catalog (notes, source names, quirks...) except
// identifiers and URLs, and fails on retrieval narration.
func TestServedTextStatesFacts(t *testing.T) {
	names := CatalogNames()
	if len(names) < 40 {
		t.Fatalf("only %d catalogs embedded", len(names))
	}
	for _, name := range names {
		b, err := catalogFS.ReadFile("catalogs/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bad := 0
		var walk func(v any, path string)
		walk = func(v any, path string) {
			switch v := v.(type) {
			case map[string]any:
				for k, e := range v {
					if k == "id" || strings.HasSuffix(k, "_id") || k == "url" || strings.HasSuffix(k, "_url") {
						continue
					}
					walk(e, path+"."+k)
				}
			case []any:
				for _, e := range v {
					walk(e, path)
				}
			case string:
				if narrates(v) == "" {
					return
				}
				bad++
				if bad <= 5 {
					t.Errorf("%s%s narrates retrieval (%q): %.300s", name, path, narrates(v), v)
				}
			}
		}
		walk(doc, "")
		if bad > 5 {
			t.Errorf("%s: %d strings narrate retrieval in all", name, bad)
		}
	}
}
