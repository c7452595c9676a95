package catalogbuild

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// stringifyJS writes v as JavaScript's JSON.stringify(v, null, 2) does, so that the npm snapshot read as data
// in Go has the very bytes the earlier extraction with node gave (and one release always gives the same bytes):
// JavaScript's number formatting, its string escaping (no HTML escaping, unlike encoding/json), and its key order
// (integer-like keys first, ascending, then the others as written).
func stringifyJS(v any) (string, error) {
	var b strings.Builder
	if err := writeJS(&b, v, ""); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeJS(b *strings.Builder, v any, indent string) error {
	inner := indent + "  "
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			b.WriteString("null")
		} else {
			b.WriteString(jsNumberString(v))
		}
	case string:
		writeJSString(b, v)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[\n")
		for i, e := range v {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			if err := writeJS(b, e, inner); err != nil {
				return err
			}
		}
		b.WriteString("\n" + indent + "]")
	case *jsObject:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i, k := range jsKeyOrder(v.keys) {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			writeJSString(b, k)
			b.WriteString(": ")
			if err := writeJS(b, v.vals[k], inner); err != nil {
				return err
			}
		}
		b.WriteString("\n" + indent + "}")
	default:
		return fmt.Errorf("stringify: %T is not data", v)
	}
	return nil
}

// jsKeyOrder is the order of an object's own keys in JavaScript: array indices ascending, then the rest in
// the order they were made.
func jsKeyOrder(keys []string) []string {
	var idx, rest []string
	for _, k := range keys {
		if isArrayIndex(k) {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	if len(idx) == 0 {
		return keys
	}
	slices.SortFunc(idx, func(a, b string) int {
		x, _ := strconv.ParseUint(a, 10, 64)
		y, _ := strconv.ParseUint(b, 10, 64)
		return cmp.Compare(x, y)
	})
	return append(idx, rest...)
}

func isArrayIndex(k string) bool {
	if k == "0" {
		return true
	}
	if k == "" || k[0] < '1' || k[0] > '9' {
		return false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < math.MaxUint32
}

// writeJSString quotes s as JSON.stringify does: only ", \ and control characters are escaped.
func writeJSString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// jsNumberString formats f as JavaScript's Number.prototype.toString() does (ECMA-262 Number::toString): the
// shortest digits that read back as f, in plain notation from 1e-7 up to 1e21, exponent notation outside.
func jsNumberString(f float64) string {
	if f == 0 {
		return "0" // -0 too
	}
	if f < 0 {
		return "-" + jsNumberString(-f)
	}
	// strconv's shortest 'e' form gives the digits and the exponent: d.ddde±x
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	abs := n - 1
	if abs < 0 {
		abs = -abs
	}
	if k == 1 {
		return digits + "e" + sign + strconv.Itoa(abs)
	}
	return digits[:1] + "." + digits[1:] + "e" + sign + strconv.Itoa(abs)
}
