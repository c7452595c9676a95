package catalogbuild

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// A provider's page often gives a limit only as a rounded figure ("1M tokens", "128K", "8k"). Such a figure is
// either decimal (128K = 128,000) or binary (128K = 131,072 = 128 x 1,024) and the page does not say which.

var roundedRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([KkMm])(?:\s+tokens?)?$`)

// parseRounded is the range a rounded figure covers: from its decimal reading to its binary one.
func parseRounded(text string) (low, high int64, ok bool) {
	m := roundedRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return 0, 0, false
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n <= 0 {
		return 0, 0, false
	}
	dec, bin := 1e3, 1024.0
	if strings.EqualFold(m[2], "m") {
		dec, bin = 1e6, 1024*1024
	}
	return int64(math.Round(n * dec)), int64(math.Floor(n * bin)), true
}

// roundedLimit is the value served for a limit a page gives as a rounded figure: the data sets' exact value where
// it lies within the figure's rounding (the page confirms it; the data sets that gave it are returned to be cited
// with the page), else the figure's decimal reading, which is what the page literally says. Data sets that fall
// within the rounding but disagree with each other settle nothing.
func roundedLimit(text string, vals []sourced) (v int64, from []string) {
	low, high, ok := parseRounded(text)
	if !ok {
		return 0, nil
	}
	var inBand []sourced
	for _, s := range vals {
		if s.v >= float64(low) && s.v <= float64(high) {
			inBand = append(inBand, s)
		}
	}
	if len(inBand) == 0 {
		return low, nil
	}
	for _, s := range inBand[1:] {
		if s.v != inBand[0].v {
			return low, nil
		}
	}
	for _, s := range inBand {
		from = append(from, s.src)
	}
	return int64(inBand[0].v), from
}
