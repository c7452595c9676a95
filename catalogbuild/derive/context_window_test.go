package derive

import (
	"strings"
	"testing"

	"github.com/switchboard/switchboard/gen/api"
)

// TestEffectiveContextRule pins the one rule of the effective fields with hand-computed figures.
func TestEffectiveContextRule(t *testing.T) {
	i := func(v int) *int { return &v }
	cases := []struct {
		name               string
		advertised, maxOut *int
		row                effectiveRow
		effective, usable  int
		fill               *float64
		noteHas            string
	}{
		// 65,536 effective, output limit 8,192 (under a quarter): usable 57,344; fill 57,344 / 131,072 = 0.4375 -> 0.44.
		{"output limit under a quarter", i(131072), i(8192), effectiveRow{"M", 65536, false}, 65536, 57344, f(0.44), "up to 65,536 tokens"},
		// output limit 32,768 is over a quarter (16,384): usable 49,152; fill 0.375 -> 0.38.
		{"a quarter at most", i(131072), i(32768), effectiveRow{"M", 65536, false}, 65536, 49152, f(0.38), "falls below"},
		// unknown output limit: a quarter.
		{"unknown output limit", i(131072), nil, effectiveRow{"M", 65536, false}, 65536, 49152, f(0.38), ""},
		// tested window larger than the one served: capped at 40,960; quarter 10,240; usable 30,720; fill 0.75.
		{"capped at the advertised window", i(40960), nil, effectiveRow{"M", 131072, true}, 40960, 30720, f(0.75), "Capped at the advertised window of 40,960"},
		// unknown advertised window: no fill.
		{"unknown window", nil, i(4096), effectiveRow{"M", 32768, false}, 32768, 28672, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := withEffective(api.ContextWindowRecord{AdvertisedContext: c.advertised}, c.maxOut, c.row)
			if *r.EffectiveContext != c.effective || *r.UsableTokens != c.usable || (r.RecommendedMaxFill == nil) != (c.fill == nil) ||
				(c.fill != nil && *r.RecommendedMaxFill != *c.fill) || r.DegradationNote == nil {
				t.Fatalf("got effective %d, usable %d, fill %v", *r.EffectiveContext, *r.UsableTokens, r.RecommendedMaxFill)
			}
			if c.noteHas != "" && !strings.Contains(*r.DegradationNote, c.noteHas) {
				t.Errorf("note %q lacks %q", *r.DegradationNote, c.noteHas)
			}
		})
	}
}

func f(v float64) *float64 { return &v }
