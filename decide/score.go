package decide

import (
	"math"
	"strconv"
)

// The parts the decision scores are built from. Each maps a figure to 0..1 on a fixed scale, so that a model's
// own part does not depend on the field it is ranked in (Pick prunes its scan on that), and each is written in
// docs/decisions.md with the weights of every decision.

// Latency scale: the observed status-page fetch time of the last hour, on a log scale from latencyBestMs (1) to
// latencyWorstMs (0). A log scale makes the same ratio cost the same everywhere: 3x slower is 0.2 less, whether
// from 20 to 60 ms or from 500 to 1500 ms.
const (
	latencyBestMs  = 20.0
	latencyWorstMs = 5000.0
)

// latencyScore is 0..1 for the provider's observed latency, 0 when it is unknown.
func latencyScore(l Live) float64 {
	if l.prepared {
		return l.latency
	}
	ms, ok := l.observedMs()
	if !ok {
		return 0
	}
	return logScale(ms, latencyBestMs, latencyWorstMs)
}

// uptimeScore is 0..1: 100 % is 1, uptimeFloorPct or less is 0, linear between; 0 when unknown.
func uptimeScore(pct *float64) float64 {
	if pct == nil {
		return 0
	}
	return clamp01((*pct - uptimeFloorPct) / (100 - uptimeFloorPct))
}

const uptimeFloorPct = 90.0

// Unit is the unit a task's price is given in (the document's PriceUnit).
type Unit string

// The price units.
const (
	UnitTokens     Unit = "1m_input_tokens"
	UnitImage      Unit = "image"
	UnitAudioMin   Unit = "audio_minute"
	UnitChars      Unit = "1k_characters"
	UnitRequest    Unit = "request"
	UnitVideoSec   Unit = "video_second"
	unitPriceScale      = 1000.0 // every unit's scale spans 3 decades
)

// cheapEnd is, per unit, the price that scores 1 (at or below it); a price 1000 times it scores 0. A 2x price
// is log10(2)/3 = 0.1 less on every scale. The ends are round figures below the cheapest and above the dearest
// offers of the catalogs.
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
	lo := cheapEnd[u]
	return logScale(*usd, lo, lo*unitPriceScale)
}

// logScale is 1 at or below best, 0 at or above worst, log-linear between.
func logScale(x, best, worst float64) float64 {
	if x <= best {
		return 1
	}
	return clamp01(math.Log(worst/x) / math.Log(worst/best))
}

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
