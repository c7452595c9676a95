package health

import (
	"math"
	"sort"

	"github.com/switchboard/switchboard/store"
)

// Trend is the direction of the poll response time.
type Trend string

// The trends.
const (
	TrendImproving Trend = "improving"
	TrendStable    Trend = "stable"
	TrendDegrading Trend = "degrading"
	TrendUnknown   Trend = "unknown"
)

// Thresholds of the statistics.
const (
	// DriftSamples is how many of the latest latency samples the drift score, the freshness trend and
	// avg_response_ms of /freshness use.
	DriftSamples = 10
	// MinTrendSamples is the fewest samples a trend is computed from (two per half).
	MinTrendSamples = 4
	// TrendTolerance is the relative change of the average under which the trend is stable (10 percent).
	TrendTolerance = 0.10
)

// sample is the latency sample of a check: its response time when it observed a status. A failed fetch is no
// observation, and its time (a quick DNS failure, a timeout) says nothing about how the page answers.
func sample(c store.Check) (float64, bool) {
	if c.Outcome == store.OutcomeFailed || c.ResponseTimeMs == nil {
		return 0, false
	}
	return *c.ResponseTimeMs, true
}

func samplesOf(cs []store.Check) []float64 {
	out := make([]float64, 0, len(cs))
	for _, c := range cs {
		if v, ok := sample(c); ok {
			out = append(out, v)
		}
	}
	return out
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// percentile is the nearest-rank percentile (p in 0..100) of xs: the smallest value with at least p percent of
// the values at or below it. xs is not modified. It is 0 for no values.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// drift is the coefficient of variation (population standard deviation over mean) of xs, clamped to 0..1; ok is
// false with fewer than 2 values. A mean of 0 gives 0.
func drift(xs []float64) (float64, bool) {
	if len(xs) < 2 {
		return 0, false
	}
	m := mean(xs)
	if m <= 0 {
		return 0, true
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	cv := math.Sqrt(ss/float64(len(xs))) / m
	return min(max(cv, 0), 1), true
}

// trendOf compares the average of the most recent half of xs (oldest first) with the average of the older half;
// with an odd count the middle value belongs to neither. Improving when the recent average is more than
// TrendTolerance below the older one, degrading when more than TrendTolerance above, else stable. delta is recent
// minus older, in the unit of xs. With fewer than MinTrendSamples values the trend is unknown and ok is false.
func trendOf(xs []float64) (t Trend, delta float64, ok bool) {
	n := len(xs)
	if n < MinTrendSamples {
		return TrendUnknown, 0, false
	}
	h := n / 2
	older, recent := mean(xs[:h]), mean(xs[n-h:])
	delta = recent - older
	switch {
	case recent < older*(1-TrendTolerance):
		return TrendImproving, delta, true
	case recent > older*(1+TrendTolerance):
		return TrendDegrading, delta, true
	}
	return TrendStable, delta, true
}

// Rounding of the figures served: milliseconds to 0.1, percentages to 0.01, fractions to 0.0001.
func roundTo(x float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(x*p) / p
}

func ms(x float64) *float64       { v := roundTo(x, 1); return &v }
func pct(x float64) *float64      { v := roundTo(x, 2); return &v }
func fraction(x float64) *float64 { v := roundTo(x, 4); return &v }
