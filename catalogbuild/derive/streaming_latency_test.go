package derive

import "testing"

func TestStreamingLatencyRules(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	row := func(id string, tput, lat *float64) llmStatsRow {
		return llmStatsRow{ModelID: id, ModelName: "Model " + id, Throughput: tput, Latency: lat, UpdatedAt: "2025-07-19T19:49:16Z"}
	}
	var all []llmStatsRow
	// A pair on three rows is a placeholder; latency 0.5 on ten rows is a default value.
	for i := range 3 {
		all = append(all, row("p"+string(rune('a'+i)), f(100), f(0.5)))
	}
	for i := range 7 {
		all = append(all, row("l"+string(rune('a'+i)), f(float64(200+i)), f(0.5)))
	}
	measured := row("m", f(250), f(0.27))
	slow := row("s", f(0.1), f(0.18))
	all = append(all, measured, slow)
	d := findDefaults(all)
	to := mtebServed{"groq", "model-m"}

	if _, ok := latencyRecord(all[0], to, "Groq", d); ok {
		t.Error("a placeholder pair gives a record")
	}
	r, ok := latencyRecord(measured, to, "Groq", d)
	if !ok || r.MedianTtftMs == nil || *r.MedianTtftMs != 270 || r.ThroughputTokensPerSec == nil || *r.ThroughputTokensPerSec != 250 ||
		r.MedianTptMs == nil || *r.MedianTptMs != 4 || r.P90TtftMs != nil || r.MeasuredAt != "2025-07" ||
		r.BenchmarkSource != StreamingBenchmarkSource || r.ModelId != "model-m" || r.ProviderName != "Groq" {
		t.Errorf("measured row: %+v", r)
	}
	// Latency 0.5 is on ten rows: left out, the row's throughput stays.
	r, ok = latencyRecord(all[3], to, "Groq", d)
	if !ok || r.MedianTtftMs != nil || r.ThroughputTokensPerSec == nil || *r.ThroughputTokensPerSec != 200 {
		t.Errorf("row with a default latency: %+v", r)
	}
	// Under one token per second is not a measurement; the latency stays.
	r, ok = latencyRecord(slow, to, "Groq", d)
	if !ok || r.ThroughputTokensPerSec != nil || r.MedianTptMs != nil || r.MedianTtftMs == nil || *r.MedianTtftMs != 180 {
		t.Errorf("row with a throughput under 1: %+v", r)
	}
	if _, ok := latencyRecord(row("n", nil, nil), to, "Groq", d); ok {
		t.Error("a row without figures gives a record")
	}
}
