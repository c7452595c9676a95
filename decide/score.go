package decide

import (
	"math"
	"strconv"
)

// The parts the decision scores are built from. Each maps a figure to 0..1 on a fixed scale, so that a model's
// own part does not depend on the field it is ranked in (Pick prunes its scan on that), and each is written in
// docs/decisions.md with the weights of every decision.

// Every part is strictly monotonic over the whole range of its figure, with no clamp at either end: two
// candidates whose figures differ get different parts, so nothing piles up at a cap (issue 35: four providers
// at 100 in /recommend, settled by provider ID).

// latencyRefMs sets the latency scale: L = 1 / (1 + ln(1 + ms / latencyRefMs)), 1 at 0 ms, 0.59 at 20 ms, 0.36
// at 100 ms, 0.2 at 1000 ms, 0.15 at 5000 ms. A log inside keeps a ratio worth about the same everywhere.
const latencyRefMs = 20.0

// latencyScore is 0..1 for the provider's observed latency, 0 when it is unknown.
func latencyScore(l Live) float64 {
	if l.prepared {
		return l.latency
	}
	ms, ok := l.observedMs()
	if !ok {
		return 0
	}
	return 1 / (1 + math.Log1p(math.Max(0, ms)/latencyRefMs))
}

// uptimeScore is 0..1: (uptime / 100)^10, 1 at 100 %, 0.99 at 99.9 %, 0.9 at 99 %, 0.6 at 95 %, 0.35 at 90 %;
// 0 when unknown.
func uptimeScore(pct *float64) float64 {
	if pct == nil {
		return 0
	}
	return math.Pow(clamp01(*pct/100), uptimeExponent)
}

const uptimeExponent = 10.0

// Unit is the unit a task's price is given in (the document's PriceUnit).
type Unit string

// The price units.
const (
	UnitTokens   Unit = "1m_input_tokens"
	UnitImage    Unit = "image"
	UnitAudioMin Unit = "audio_minute"
	UnitChars    Unit = "1k_characters"
	UnitRequest  Unit = "request"
	UnitVideoSec Unit = "video_second"
)

// cheapEnd is, per unit, the reference price of the price scale: P = 1 / (1 + log10(1 + price / cheapEnd)),
// 1 for a free model, 0.77 at the cheap end, 0.49 at 10 times it, 0.33 at 100 times, 0.25 at 1000 times. The
// ends are round figures near the cheapest offers of the catalogs.
var cheapEnd = map[Unit]float64{
	UnitTokens:   0.05,   // USD per 1M tokens, blended 3 input : 1 output
	UnitImage:    0.002,  // USD per image
	UnitAudioMin: 0.0005, // USD per minute of audio
	UnitChars:    0.001,  // USD per 1K characters
	UnitRequest:  0.0005, // USD per request
	UnitVideoSec: 0.01,   // USD per second of video
}

// priceScore is 0..1 on the unit's scale; 0 when the price is unknown.
func priceScore(usd *float64, u Unit) float64 {
	if usd == nil {
		return 0
	}
	return 1 / (1 + math.Log10(1+math.Max(0, *usd)/cheapEnd[u]))
}

// contextScore is 0..1: tokens / (tokens + 200k), 0.39 at 128k, 0.5 at 200k, 0.83 at 1M; 0 when unknown.
func contextScore(c *int64) float64 {
	if c == nil || *c <= 0 {
		return 0
	}
	return float64(*c) / (float64(*c) + contextRef)
}

const contextRef = 200_000.0

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// observedMs is the latency a decision scores: the mean of the p50 and p95 of the last hour's fetch times,
// so that a provider that is fast in the median but often slow loses some; the last fetch time when the hour
// has no samples; false when neither is known.
func (l Live) observedMs() (float64, bool) {
	switch {
	case l.P50Ms != nil && l.P95Ms != nil:
		return (*l.P50Ms + *l.P95Ms) / 2, true
	case l.ResponseTimeMs != nil:
		return *l.ResponseTimeMs, true
	}
	return 0, false
}

// statusPhrase opens a reason: "operational", or "status unknown (no observation)".
func statusPhrase(status string) string {
	if status == StatusUnknown {
		return "status unknown (no observation)"
	}
	return status
}

func fmtUptime(p *float64) string {
	if p == nil {
		return "7-day uptime unknown"
	}
	return strconv.FormatFloat(math.Round(*p*100)/100, 'f', -1, 64) + "% 7-day uptime"
}

// fmtLatency is the observed latency of a reason.
func fmtLatency(l Live) string {
	if l.P50Ms != nil && l.P95Ms != nil {
		return fmtMs(l.P50Ms) + " p50, " + fmtMs(l.P95Ms) + " p95"
	}
	return fmtMs(l.ResponseTimeMs)
}

// unitPhrase writes a unit price: "$0.15/1M input", "$0.04/image".
func unitPhrase(usd float64, u Unit) string {
	switch u {
	case UnitTokens:
		return fmtUSD(usd) + "/1M input"
	case UnitAudioMin:
		return fmtUSD(usd) + "/audio minute"
	case UnitChars:
		return fmtUSD(usd) + "/1K characters"
	case UnitVideoSec:
		return fmtUSD(usd) + "/video second"
	}
	return fmtUSD(usd) + "/" + string(u)
}
