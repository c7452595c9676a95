package web

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/health"
)

// Colours shared by the badges, the dashboard's status cells and its uptime bars (shields.io's palette, so a
// badge looks at home next to others in a README).
const (
	ColorGreen      = "#4c1"    // operational; uptime >= 99.9 %
	ColorLightGreen = "#97ca00" // uptime >= 99 %
	ColorYellow     = "#dfb317" // degraded; uptime >= 95 %
	ColorOrange     = "#fe7d37" // uptime >= 90 %
	ColorRed        = "#e05d44" // outage; uptime below 90 %
	ColorGrey       = "#9f9f9f" // unknown; no checks
)

// StatusColor is the colour of a provider status.
func StatusColor(s health.Status) string {
	switch s {
	case health.StatusOperational:
		return ColorGreen
	case health.StatusDegraded:
		return ColorYellow
	case health.StatusOutage:
		return ColorRed
	}
	return ColorGrey
}

// UptimeColor is the colour of an uptime percentage; nil (no observed checks) is grey.
func UptimeColor(pct *float64) string {
	switch {
	case pct == nil:
		return ColorGrey
	case *pct >= 99.9:
		return ColorGreen
	case *pct >= 99:
		return ColorLightGreen
	case *pct >= 95:
		return ColorYellow
	case *pct >= 90:
		return ColorOrange
	}
	return ColorRed
}

// uptimeClass is the CSS class of an uptime bar cell, matching UptimeColor.
func uptimeClass(pct *float64) string {
	switch UptimeColor(pct) {
	case ColorGreen:
		return "u-green"
	case ColorLightGreen:
		return "u-lightgreen"
	case ColorYellow:
		return "u-yellow"
	case ColorOrange:
		return "u-orange"
	case ColorRed:
		return "u-red"
	}
	return "u-none"
}

// textWidth estimates the width in pixels of s in 11 px Verdana, the badge font. An estimate is enough: the
// badge only needs room for its text, and no font metrics are embedded.
func textWidth(s string) int {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("iljI.,:;|!' ", r):
			w += 3.8
		case strings.ContainsRune("mwMW%", r):
			w += 10.5
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			w += 7.5
		default:
			w += 6.6
		}
	}
	return int(math.Ceil(w))
}

// Badge renders a shields-style flat badge: label on grey, value on color.
func Badge(label, value, color string) []byte {
	lw, vw := textWidth(label)+10, textWidth(value)+10
	w := lw + vw
	l, v, c := escape(label), escape(value), escape(color)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">`, w, l, v)
	fmt.Fprintf(&b, `<title>%s: %s</title>`, l, v)
	b.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(&b, `<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`, w)
	fmt.Fprintf(&b, `<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>`, lw, lw, vw, c, w)
	b.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">`)
	fmt.Fprintf(&b, `<text x="%d" y="15" fill="#010101" fill-opacity=".3">%s</text><text x="%d" y="14">%s</text>`, lw/2, l, lw/2, l)
	fmt.Fprintf(&b, `<text x="%d" y="15" fill="#010101" fill-opacity=".3">%s</text><text x="%d" y="14">%s</text>`, lw+vw/2, v, lw+vw/2, v)
	b.WriteString(`</g></svg>`)
	return []byte(b.String())
}

// StatusBadge is the badge of a provider's current status.
func StatusBadge(name string, s health.Status) []byte {
	return Badge(name, string(s), StatusColor(s))
}

// UptimeBadge is the badge of a provider's uptime over a period (7d, 30d, 90d); nil pct reads "no data".
func UptimeBadge(period string, pct *float64) []byte {
	value := "no data"
	if pct != nil {
		value = strconv.FormatFloat(*pct, 'f', -1, 64) + "%"
	}
	return Badge("uptime "+period, value, UptimeColor(pct))
}

func escape(s string) string { return template.HTMLEscapeString(s) }

// Chart geometry, in SVG user units; the SVG scales to its container's width.
const (
	chartW, chartH         = 720, 200
	chartLeft, chartBottom = 56, 24
	chartTop, chartRight   = 10, 10
)

// ResponseChart renders the response times of samples between since and until as an inline SVG line chart,
// with outage and degraded samples marked. Without samples it says so instead of drawing an empty frame.
func ResponseChart(title string, samples []health.ResponseSample, since, until time.Time) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`, chartW, chartH, escape(title))
	fmt.Fprintf(&b, `<title>%s</title>`, escape(title))
	plotW, plotH := float64(chartW-chartLeft-chartRight), float64(chartH-chartTop-chartBottom)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" class="frame"/>`, chartLeft, chartTop, plotW, plotH)
	if len(samples) == 0 || !until.After(since) {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" class="empty">no response times in this period</text></svg>`, chartW/2, chartH/2)
		return template.HTML(b.String())
	}
	top := 0.0
	for _, s := range samples {
		top = math.Max(top, s.Ms)
	}
	top = niceCeil(top)
	span := until.Sub(since).Seconds()
	x := func(t time.Time) float64 { return float64(chartLeft) + plotW*t.Sub(since).Seconds()/span }
	y := func(ms float64) float64 { return float64(chartTop) + plotH*(1-ms/top) }
	for _, f := range []float64{0, 0.5, 1} {
		yy := y(top * f)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, chartLeft, chartW-chartRight, yy, yy)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" class="axis">%s ms</text>`, chartLeft-4, yy+4, strconv.FormatFloat(top*f, 'f', -1, 64))
	}
	layout := "15:04"
	if span > 36*3600 {
		layout = "Jan 2"
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="axis">%s</text>`, chartLeft, chartH-6, since.UTC().Format(layout))
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" class="axis">%s UTC</text>`, chartW-chartRight, chartH-6, until.UTC().Format(layout))
	b.WriteString(`<polyline class="line" points="`)
	for i, s := range samples {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", x(s.At), y(s.Ms))
	}
	b.WriteString(`"/>`)
	for _, s := range samples {
		if s.Outcome == "outage" || s.Outcome == "degraded" {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %s %.0f ms</title></circle>`,
				x(s.At), y(s.Ms), StatusColor(health.Status(s.Outcome)), s.At.UTC().Format(time.RFC3339), s.Outcome, s.Ms)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// niceCeil rounds a positive value up to 1, 2 or 5 times a power of ten, so the axis reads in round numbers.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
