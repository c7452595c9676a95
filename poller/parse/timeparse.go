package parse

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// parseTime reads the time formats status pages use (statuspage-formats.md, pitfall 11): RFC 3339 with or without
// fractions and offsets, RFC 1123/822 with numeric offsets or zone abbreviations (mapped to their real offsets,
// because Go's time.Parse gives an unknown abbreviation a zero offset), JavaScript Date.toString values
// ("Sat Jun 11 2022 18:55:50 GMT+0000 (Coordinated Universal Time)"), and epoch seconds or milliseconds, as
// numbers or strings. A value without any zone is read as UTC. The result is in UTC; ok is false when nothing
// fits.
func parseTime(s string) (t time.Time, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 100 {
		return time.Time{}, false
	}
	if t, ok := parseEpoch(s); ok {
		return t, true
	}
	// JavaScript appends the zone's long name in parentheses.
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[:i])
	}
	s = numericZone(s)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999 -0700",
	"2006-01-02 15:04:05.999999999 -07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 06 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 06 15:04 -0700",
	"Monday, 2-Jan-06 15:04:05 -0700",
	"Mon Jan 2 2006 15:04:05 GMT-0700",
	"Mon Jan 2 2006 15:04:05 -0700",
	"Mon Jan _2 15:04:05 -0700 2006",
	"Mon Jan _2 15:04:05 2006",
	"Jan 2, 2006 15:04:05 -0700",
	"Jan 2, 2006 15:04 -0700",
	"Jan 2, 2006, 15:04 -0700",
	"January 2, 2006 15:04 -0700",
	"January 2, 2006, 15:04 -0700",
	"Jan 2, 2006 15:04:05",
	"Jan 2, 2006 15:04",
	"2006/01/02 15:04:05 -0700",
	"2006/01/02 15:04:05",
}

// zoneOffsets maps the zone abbreviations seen on status pages (AWS uses US zones) to their UTC offsets.
var zoneOffsets = map[string]string{
	"Z": "+0000", "UT": "+0000", "UTC": "+0000", "GMT": "+0000", "WET": "+0000",
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500", "MST": "-0700", "MDT": "-0600",
	"PST": "-0800", "PDT": "-0700", "AKST": "-0900", "AKDT": "-0800", "HST": "-1000",
	"BST": "+0100", "WEST": "+0100", "CET": "+0100", "CEST": "+0200", "EET": "+0200", "EEST": "+0300",
	"MSK": "+0300", "IST": "+0530", "SGT": "+0800", "HKT": "+0800", "JST": "+0900", "KST": "+0900",
	"ACST": "+0930", "AEST": "+1000", "AEDT": "+1100", "NZST": "+1200", "NZDT": "+1300",
}

// numericZone replaces a trailing zone abbreviation ("PDT", "UTC", "Z" after a space) by its numeric offset.
func numericZone(s string) string {
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return s
	}
	if off, ok := zoneOffsets[strings.ToUpper(s[i+1:])]; ok {
		return s[:i+1] + off
	}
	return s
}

// parseEpoch reads epoch seconds (or milliseconds, when the number is too large to be seconds) between 2000 and
// 2200.
func parseEpoch(s string) (time.Time, bool) {
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' {
			return time.Time{}, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return time.Time{}, false
	}
	if f > 1e11 { // milliseconds
		f /= 1000
	}
	if f < 946684800 || f > 7258118400 { // 2000-01-01 .. 2200-01-01
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
}
