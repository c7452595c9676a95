package impl

import (
	"testing"
	"time"

	"github.com/switchboard/switchboard/gen/api"
)

// TestShutdownFilter: no filter before the first shutdown day (the shared slice is served as built); from a
// model's day on, that model is left out and the others stay.
func TestShutdownFilter(t *testing.T) {
	c := &served[api.PricingRecord]{
		provider:      func(r *api.PricingRecord) string { return r.ProviderId },
		model:         func(r *api.PricingRecord) string { return r.Model },
		shutdowns:     map[string]string{"openai/old": "2026-10-23", "openai/later": "2027-01-01"},
		firstShutdown: "2026-10-23",
	}
	old, later, kept := &api.PricingRecord{ProviderId: "openai", Model: "old"}, &api.PricingRecord{ProviderId: "openai", Model: "later"}, &api.PricingRecord{ProviderId: "openai", Model: "gpt-x"}
	if f := c.shutdownFilter(time.Date(2026, 10, 22, 23, 59, 0, 0, time.UTC)); f != nil {
		t.Error("a filter before the first shutdown day")
	}
	f := c.shutdownFilter(time.Date(2026, 10, 23, 0, 0, 0, 0, time.UTC))
	if f == nil || f(old) || !f(later) || !f(kept) {
		t.Error("on 2026-10-23: want old left out, later and gpt-x kept")
	}
	f = c.shutdownFilter(time.Date(2027, 1, 1, 8, 0, 0, 0, time.UTC))
	if f == nil || f(old) || f(later) || !f(kept) {
		t.Error("on 2027-01-01: want old and later left out")
	}
	if (&served[api.PricingRecord]{}).shutdownFilter(time.Now()) != nil {
		t.Error("a catalog that is not per model has no shutdown filter")
	}
}
