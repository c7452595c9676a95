package health

import (
	"math"
	"testing"
)

func TestPercentileNearestRank(t *testing.T) {
	xs := []float64{50, 15, 40, 20, 35} // unsorted on purpose
	for p, want := range map[float64]float64{5: 15, 30: 20, 40: 20, 50: 35, 95: 50, 100: 50, 0: 15} {
		if got := percentile(xs, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if xs[0] != 50 {
		t.Error("percentile sorted its input")
	}
	var hundred []float64
	for i := 100; i >= 1; i-- {
		hundred = append(hundred, float64(i))
	}
	if percentile(hundred, 50) != 50 || percentile(hundred, 95) != 95 || percentile(hundred, 99) != 99 {
		t.Errorf("1..100: p50 %v p95 %v p99 %v", percentile(hundred, 50), percentile(hundred, 95), percentile(hundred, 99))
	}
	if percentile([]float64{7}, 99) != 7 || percentile(nil, 50) != 0 {
		t.Error("single value or none")
	}
}

func TestDrift(t *testing.T) {
	if _, ok := drift([]float64{100}); ok {
		t.Error("drift of one sample")
	}
	if d, ok := drift([]float64{200, 200, 200}); !ok || d != 0 {
		t.Errorf("steady = %v %v", d, ok)
	}
	// mean 15, population standard deviation 5.
	if d, _ := drift([]float64{10, 20}); math.Abs(d-1.0/3) > 1e-12 {
		t.Errorf("cv(10, 20) = %v", d)
	}
	// mean 1000.1, standard deviation about 3000: clamped to 1.
	if d, _ := drift([]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 10000}); d != 1 {
		t.Errorf("wild = %v, want clamped to 1", d)
	}
	if d, ok := drift([]float64{0, 0}); !ok || d != 0 {
		t.Errorf("zeros = %v %v", d, ok)
	}
}

func TestTrend(t *testing.T) {
	cases := []struct {
		xs    []float64
		want  Trend
		delta float64
	}{
		{[]float64{100, 100, 100}, TrendUnknown, 0},
		{[]float64{100, 100, 200, 200}, TrendDegrading, 100},
		{[]float64{200, 200, 100, 100}, TrendImproving, -100},
		{[]float64{100, 105, 100, 105}, TrendStable, 0},
		{[]float64{100, 100, 110, 110}, TrendStable, 10},           // exactly 10 percent: not more
		{[]float64{100, 100, 111, 111}, TrendDegrading, 11},        // just over
		{[]float64{100, 100, 89, 89}, TrendImproving, -11},         // just under
		{[]float64{100, 100, 9999, 200, 200}, TrendDegrading, 100}, // the middle of an odd count is in neither half
		{[]float64{0, 0, 0, 0}, TrendStable, 0},
	}
	for _, c := range cases {
		got, delta, ok := trendOf(c.xs)
		if got != c.want || (ok && math.Abs(delta-c.delta) > 1e-9) || ok != (c.want != TrendUnknown) {
			t.Errorf("trend(%v) = %s %v %v, want %s %v", c.xs, got, delta, ok, c.want, c.delta)
		}
	}
}

func TestCongestionThresholds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		rate float64
		avg  *float64
		want Congestion
	}{
		{0, f(200), CongestionLow},
		{0, nil, CongestionLow},
		{0.09, f(1499), CongestionLow},
		{0.1, f(200), CongestionModerate},
		{0, f(1500), CongestionModerate},
		{0.24, f(2999), CongestionModerate},
		{0.25, f(200), CongestionHigh},
		{0, f(3000), CongestionHigh},
		{0.49, f(7999), CongestionHigh},
		{0.5, f(200), CongestionCritical},
		{0, f(8000), CongestionCritical},
		{1, nil, CongestionCritical},
	}
	for _, c := range cases {
		if got := classify(c.rate, c.avg); got != c.want {
			avg := "nil"
			if c.avg != nil {
				avg = "set"
			}
			t.Errorf("classify(%v, %s %v) = %q, want %q", c.rate, avg, c.avg, got, c.want)
		}
	}
	for _, c := range []Congestion{CongestionUnknown, CongestionLow, CongestionModerate, CongestionHigh, CongestionCritical} {
		if recommendations[c] == "" {
			t.Errorf("no recommendation for %q", c)
		}
	}
	for c, want := range map[Congestion]RateLimitRisk{
		CongestionLow: RiskLow, CongestionModerate: RiskMedium, CongestionHigh: RiskHigh, CongestionCritical: RiskHigh,
		CongestionUnknown: RiskMedium,
	} {
		if got := riskOf(c); got != want {
			t.Errorf("risk of %q = %s, want %s", c, got, want)
		}
	}
}
