package catalogbuild

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/gen/api"
)

// Price structures the flat pricing record cannot hold (long-context tiers, dated promotions, time-of-day rates)
// and standard rates a provider's page gives that the lifecycle curation left empty, curated by hand into
// sources/official/prices: one file per provider, every structure tied to a page of that file.

// StandardRates are a model's standard token prices as a page gives them; a nil field leaves the price the
// lifecycle curation or the data sets give.
type StandardRates struct {
	InputPer1mTokens       *float64 `json:"input_per_1m_tokens"`
	OutputPer1mTokens      *float64 `json:"output_per_1m_tokens"`
	CachedInputPer1mTokens *float64 `json:"cached_input_per_1m_tokens"`
	// NoCachedInput says the page states the model has no cached-input price (OpenAI's GPT-5.5 Pro "does not offer
	// a cached input discount"): the served cached price is null and verified, not a data set's.
	NoCachedInput bool   `json:"no_cached_input,omitempty"`
	Source        string `json:"source"`
}

// PricedModel is one model's curated price structures.
type PricedModel struct {
	ModelID     string                  `json:"model_id"`
	Standard    *StandardRates          `json:"standard"`
	LongContext *api.PricingLongContext `json:"long_context"`
	Promotion   *api.PricingPromotion   `json:"promotion"`
	TimeOfDay   *api.PricingTimeOfDay   `json:"time_of_day"`
}

// PriceFile is sources/official/prices/<provider>.json.
type PriceFile struct {
	ProviderID string         `json:"provider_id"`
	Pages      []OfficialPage `json:"pages"`
	Models     []PricedModel  `json:"models"`
}

// OfficialPricesDir is sources/official/prices for sources/upstream.
func OfficialPricesDir(dataDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(dataDir)), "official", "prices")
}

// LoadPrices reads every file of dir (sources/official/prices) and checks it; known are the provider IDs. A
// missing folder is no curated data.
func LoadPrices(dir string, known map[string]bool) (map[string]*PriceFile, error) {
	files, err := curatedFiles(dir, known, func(f *PriceFile) string { return f.ProviderID })
	if err != nil {
		return nil, err
	}
	out := map[string]*PriceFile{}
	for _, f := range files {
		if err := checkPriceFile(f.ProviderID+".json", f, known); err != nil {
			return nil, err
		}
		out[f.ProviderID] = f
	}
	return out, nil
}

// Page returns the page of that id.
func (f *PriceFile) Page(id string) (OfficialPage, bool) { return pageByID(f.Pages, id) }

// Model returns the curated structures of a model, or nil.
func (f *PriceFile) Model(model string) *PricedModel {
	if f == nil {
		return nil
	}
	return byID(f.Models, func(m *PricedModel) string { return m.ModelID }, model)
}

func checkRate(what string, p *float64, required bool) error {
	switch {
	case p == nil && required:
		return fmt.Errorf("%s is missing", what)
	case p != nil && (*p < 0 || *p > 1000 || math.IsNaN(*p)):
		return fmt.Errorf("%s %v is out of range", what, *p)
	}
	return nil
}

var weekdays = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// minuteOf reads HH:MM ("24:00" only as an end) as minutes since midnight.
func minuteOf(s string, end bool) (int, bool) {
	var h, m int
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	if _, err := fmt.Sscanf(s, "%2d:%2d", &h, &m); err != nil {
		return 0, false
	}
	if h == 24 && m == 0 && end {
		return 24 * 60, true
	}
	if h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

func checkPriceFile(file string, f *PriceFile, known map[string]bool) error {
	if !known[f.ProviderID] || file != f.ProviderID+".json" {
		return fmt.Errorf("%s: provider_id %q is unknown or not the file's name", file, f.ProviderID)
	}
	pages, err := CheckPages(file, f.Pages)
	if err != nil {
		return err
	}
	cites := func(what, id string) error {
		if !pages[id] {
			return fmt.Errorf("%s: %s cites unknown page %q", file, what, id)
		}
		return nil
	}
	seen := map[string]bool{}
	for _, m := range f.Models {
		w := file + ": " + m.ModelID
		if m.ModelID == "" || seen[m.ModelID] {
			return fmt.Errorf("%s: model %q is empty or repeated", file, m.ModelID)
		}
		seen[m.ModelID] = true
		n := 0
		for _, has := range []bool{m.LongContext != nil, m.Promotion != nil, m.TimeOfDay != nil} {
			if has {
				n++
			}
		}
		switch {
		case m.Standard == nil && n == 0:
			return fmt.Errorf("%s: no price structure", w)
		case n > 1:
			// The cost endpoints bill a request at one rate set (decide.ratesFor); how two structures combine is
			// the provider's rule, to be written there before such a model is curated.
			return fmt.Errorf("%s: more than one of long_context, promotion and time_of_day", w)
		}
		if s := m.Standard; s != nil {
			if s.InputPer1mTokens == nil && s.OutputPer1mTokens == nil && s.CachedInputPer1mTokens == nil {
				return fmt.Errorf("%s: standard rates give no price", w)
			}
			if s.NoCachedInput && s.CachedInputPer1mTokens != nil {
				return fmt.Errorf("%s: standard rates give a cached-input price and say there is none", w)
			}
			for _, r := range []struct {
				n string
				p *float64
			}{{"input", s.InputPer1mTokens}, {"output", s.OutputPer1mTokens}, {"cached input", s.CachedInputPer1mTokens}} {
				if err := checkRate(w+": standard "+r.n, r.p, false); err != nil {
					return err
				}
			}
			if err := cites(w+" standard", s.Source); err != nil {
				return err
			}
		}
		if lc := m.LongContext; lc != nil {
			if lc.ThresholdTokens < 1 {
				return fmt.Errorf("%s: long-context threshold %d is not positive", w, lc.ThresholdTokens)
			}
			if err := checkRate(w+": long-context input", &lc.InputPer1m, true); err != nil {
				return err
			}
			if err := checkRate(w+": long-context output", lc.OutputPer1m, false); err != nil {
				return err
			}
			if err := checkRate(w+": long-context cached input", lc.CachedInputPer1m, false); err != nil {
				return err
			}
			if err := cites(w+" long_context", lc.Source); err != nil {
				return err
			}
		}
		if p := m.Promotion; p != nil {
			if err := checkRate(w+": promotion input", &p.InputPer1m, true); err != nil {
				return err
			}
			if err := checkRate(w+": promotion output", p.OutputPer1m, false); err != nil {
				return err
			}
			if err := checkRate(w+": promotion cached input", p.CachedInputPer1m, false); err != nil {
				return err
			}
			if p.Ends.IsZero() || strings.TrimSpace(p.Note) == "" {
				return fmt.Errorf("%s: promotion needs an end day and a note", w)
			}
			if err := cites(w+" promotion", p.Source); err != nil {
				return err
			}
		}
		if t := m.TimeOfDay; t != nil {
			if err := checkTimeOfDay(w, t); err != nil {
				return err
			}
			if err := cites(w+" time_of_day", t.Source); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkTimeOfDay checks the windows: well-formed times, from before to, known days, no two windows overlapping
// on a day (a minute of the week has one rate).
func checkTimeOfDay(w string, t *api.PricingTimeOfDay) error {
	if len(t.Windows) == 0 || strings.TrimSpace(t.Note) == "" {
		return fmt.Errorf("%s: time_of_day needs windows and a note", w)
	}
	var taken [7][24 * 60]bool
	for i, win := range t.Windows {
		from, ok1 := minuteOf(win.FromUtc, false)
		to, ok2 := minuteOf(win.ToUtc, true)
		if !ok1 || !ok2 || from >= to {
			return fmt.Errorf("%s: window %d: %q to %q is no UTC time range", w, i, win.FromUtc, win.ToUtc)
		}
		if win.Label != api.PricingTimeWindowLabelOffPeak && win.Label != api.PricingTimeWindowLabelPeak {
			return fmt.Errorf("%s: window %d: label %q", w, i, win.Label)
		}
		if len(win.Days) == 0 {
			return fmt.Errorf("%s: window %d has no day", w, i)
		}
		for _, d := range win.Days {
			di := slices.Index(weekdays, string(d))
			if di < 0 {
				return fmt.Errorf("%s: window %d: day %q", w, i, d)
			}
			for m := from; m < to; m++ {
				if taken[di][m] {
					return fmt.Errorf("%s: window %d overlaps another on %s", w, i, d)
				}
				taken[di][m] = true
			}
		}
		if err := checkRate(fmt.Sprintf("%s: window %d input", w, i), &win.InputPer1m, true); err != nil {
			return err
		}
		if err := checkRate(fmt.Sprintf("%s: window %d output", w, i), win.OutputPer1m, false); err != nil {
			return err
		}
		if err := checkRate(fmt.Sprintf("%s: window %d cached input", w, i), win.CachedInputPer1m, false); err != nil {
			return err
		}
	}
	return nil
}

// pricesSource adds a page of a price file to the sources of the catalog being built and returns its id.
func (c *converter) pricesSource(provider, page string) string {
	p, _ := c.prices[provider].Page(page)
	return c.usePage(p)
}

// applyStructures puts a model's curated long-context, promotion and time-of-day rates on its pricing record and
// cites their pages; pricedKeys records which curated models found their record.
func (c *converter) applyStructures(rec *api.PricingRecord) {
	k := key{rec.ProviderId, rec.Model}
	m := c.curatedPrices(k)
	if m == nil {
		return
	}
	c.pricedKeys[key{rec.ProviderId, m.ModelID}] = true
	var ids []string
	if m.LongContext != nil {
		lc := *m.LongContext
		rec.LongContext = &lc
		ids = append(ids, c.pricesSource(rec.ProviderId, lc.Source))
	}
	if m.Promotion != nil {
		p := *m.Promotion
		rec.Promotion = &p
		ids = append(ids, c.pricesSource(rec.ProviderId, p.Source))
	}
	if m.TimeOfDay != nil {
		t := *m.TimeOfDay
		t.Windows = slices.Clone(t.Windows)
		rec.TimeOfDay = &t
		ids = append(ids, c.pricesSource(rec.ProviderId, t.Source))
	}
	for _, id := range ids {
		if !slices.Contains(rec.Sources, id) {
			rec.Sources = append(rec.Sources, id)
		}
	}
	slices.Sort(rec.Sources)
}

// checkPricedKeys fails the build when a curated model has no pricing record: a misspelt model ID would else drop
// its structures without a word.
func (c *converter) checkPricedKeys() error {
	var missing []string
	for pid, f := range c.prices {
		for _, m := range f.Models {
			if !c.pricedKeys[key{pid, m.ModelID}] {
				missing = append(missing, pid+"/"+m.ModelID)
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("sources/official/prices: no pricing record for %s", strings.Join(missing, ", "))
	}
	return nil
}
