package decide

import (
	"fmt"
	"math"
	"time"

	"github.com/switchboard/switchboard/seeds"
)

// Price structures beyond a model's standard rates (long-context tiers, promotions, time-of-day windows), as the
// pricing catalog gives them. The cost endpoints bill a request at one rate set: the long-context tier when the
// request's input exceeds its threshold, else a promotion in force, else the time-of-day window the time falls in,
// else the standard rates. The curated files give a model at most one of them (catalogbuild refuses more); the
// order only makes the answer defined.

// Applied names of the structures, as the cost answers list them.
const (
	AppliedLongContext  = "long_context"
	AppliedCachedInput  = "cached_input"
	AppliedCacheHalf    = "cache_discount_50"
	AppliedTimeAveraged = "time_of_day averaged"
)

// rateSet is one set of token prices; Output and Cached are nil when unknown.
type rateSet struct{ Input, Output, Cached *Price }

// LongTier is a long-context tier: a request whose input tokens exceed Threshold is billed at its rates.
type LongTier struct {
	Threshold uint64
	rates     rateSet
}

// Promo is a promotion in force through the UTC day Ends (YYYY-MM-DD).
type Promo struct {
	Ends  string
	rates rateSet
}

// Window is a time-of-day window: on the UTC weekdays of Days (bit 0 Sunday, as time.Weekday), from minute From
// (included) to To (excluded) after midnight UTC.
type Window struct {
	Label    string
	Days     uint8
	From, To int
	rates    rateSet
}

// minutesOfWeek is the denominator of a forecast's averaged time-of-day rates.
const minutesOfWeek = 7 * 24 * 60

func rateSetOf(in float64, out, cached *float64) (rateSet, error) {
	var r rateSet
	var err error
	if r.Input, err = newPrice(&in); err != nil {
		return r, err
	}
	if r.Output, err = newPrice(out); err != nil {
		return r, err
	}
	r.Cached, err = newPrice(cached)
	return r, err
}

var dayBits = map[string]time.Weekday{"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday}

func hhmm(s string) (int, error) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		if s == "24:00" {
			return 24 * 60, nil
		}
		return 0, fmt.Errorf("time %q: %w", s, err)
	}
	return t.Hour()*60 + t.Minute(), nil
}

// setStructures reads a pricing record's structures onto m.
func (m *Model) setStructures(p seeds.PricingRecord) error {
	if lc := p.LongContext; lc != nil {
		r, err := rateSetOf(lc.InputPer1m, lc.OutputPer1m, lc.CachedInputPer1m)
		if err != nil {
			return fmt.Errorf("long context: %w", err)
		}
		if lc.ThresholdTokens < 1 {
			return fmt.Errorf("long context: threshold %d", lc.ThresholdTokens)
		}
		m.Long = &LongTier{Threshold: uint64(lc.ThresholdTokens), rates: r}
	}
	if pr := p.Promotion; pr != nil {
		r, err := rateSetOf(pr.InputPer1m, pr.OutputPer1m, pr.CachedInputPer1m)
		if err != nil {
			return fmt.Errorf("promotion: %w", err)
		}
		m.Promo = &Promo{Ends: pr.Ends.Format(time.DateOnly), rates: r}
	}
	if t := p.TimeOfDay; t != nil {
		for i, w := range t.Windows {
			r, err := rateSetOf(w.InputPer1m, w.OutputPer1m, w.CachedInputPer1m)
			if err != nil {
				return fmt.Errorf("time-of-day window %d: %w", i, err)
			}
			win := Window{Label: string(w.Label), rates: r}
			if win.From, err = hhmm(w.FromUtc); err == nil {
				win.To, err = hhmm(w.ToUtc)
			}
			if err != nil || win.From >= win.To {
				return fmt.Errorf("time-of-day window %d: %s to %s is no range", i, w.FromUtc, w.ToUtc)
			}
			for _, d := range w.Days {
				wd, ok := dayBits[string(d)]
				if !ok {
					return fmt.Errorf("time-of-day window %d: day %q", i, d)
				}
				win.Days |= 1 << wd
			}
			m.Windows = append(m.Windows, win)
		}
	}
	return nil
}

// standard is the model's standard rate set.
func (m *Model) standard() rateSet { return rateSet{m.Input, m.Output, m.Cached} }

// active reports whether the promotion is in force at at: through the end of its last UTC day.
func (p *Promo) active(at time.Time) bool {
	return p != nil && !at.IsZero() && at.UTC().Format(time.DateOnly) <= p.Ends
}

// window returns the time-of-day window at falls in, or nil.
func (m *Model) window(at time.Time) *Window {
	if at.IsZero() {
		return nil
	}
	u := at.UTC()
	minute := u.Hour()*60 + u.Minute()
	for i := range m.Windows {
		w := &m.Windows[i]
		if w.Days&(1<<u.Weekday()) != 0 && minute >= w.From && minute < w.To {
			return w
		}
	}
	return nil
}

// ratesFor returns the rates one request of in input tokens is billed at, at time at (zero: no promotion or
// time-of-day window applies), and the structure applied ("" for the standard rates).
func (m *Model) ratesFor(in uint64, at time.Time) (rateSet, string) {
	switch {
	case m.Long != nil && in > m.Long.Threshold:
		return m.Long.rates, AppliedLongContext
	case m.Promo.active(at):
		return m.Promo.rates, "promotion until " + m.Promo.Ends
	}
	if w := m.window(at); w != nil {
		return w.rates, w.Label
	}
	return m.standard(), ""
}

// bill is a request's cost parts at a rate set, in micro-USD: Input - Cached tokens at the input price, Cached
// tokens at the cached-input price where the rates have one (else at half the input price) and Output tokens at
// the output price; each part rounded on its own. The applied list says how cached tokens were billed.
func (r rateSet) bill(in, out, cached uint64) (volume, string) {
	v := volume{input: cost(in-cached, r.Input, 1), output: cost(out, r.Output, 1)}
	if cached == 0 {
		return v, ""
	}
	if r.Cached != nil {
		v.cached = cost(cached, r.Cached, 1)
		// The savings are the cached tokens at the price difference, rounded once.
		if r.Input != nil && r.Input.nano > r.Cached.nano {
			v.savings = cost(cached, &Price{nano: r.Input.nano - r.Cached.nano}, 1)
		}
		return v, AppliedCachedInput
	}
	v.cached = cost(cached, r.Input, 2)
	v.savings = v.cached
	return v, AppliedCacheHalf
}

// priceAt bills one request on m at time at and lists the structures applied (nil for none: rankings price
// every model of a field, and most apply nothing).
func priceAt(m *Model, in, out, cached uint64, at time.Time) (volume, rateSet, []string) {
	r, s := m.ratesFor(in, at)
	v, c := r.bill(in, out, cached)
	var applied []string
	switch {
	case s != "" && c != "":
		applied = []string{s, c}
	case s != "":
		applied = []string{s}
	case c != "":
		applied = []string{c}
	}
	return v, r, applied
}

// nonNil is an applied list as the answers carry it: an empty list, not null.
func nonNil(applied []string) []string {
	if applied == nil {
		return []string{}
	}
	return applied
}

// weekAverage bills a day's volume on m with its time-of-day windows weighted by their minutes of the week (the
// standard rates for the rest): a forecast's traffic has no time of day, so it is taken as spread evenly. Returns
// ok false when the model has no windows.
func (m *Model) weekAverage(bill func(rateSet) volume) (volume, bool) {
	if len(m.Windows) == 0 {
		return volume{}, false
	}
	var sum volume
	rest := minutesOfWeek
	add := func(v volume, minutes int) {
		f := func(x micro) micro { return math.Round(x * float64(minutes) / minutesOfWeek) }
		sum.input += f(v.input)
		sum.cached += f(v.cached)
		sum.output += f(v.output)
		sum.savings += f(v.savings)
	}
	for _, w := range m.Windows {
		minutes := (w.To - w.From) * popcount(w.Days)
		rest -= minutes
		add(bill(w.rates), minutes)
	}
	add(bill(m.standard()), rest)
	return sum, true
}

func popcount(b uint8) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}
