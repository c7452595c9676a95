package catalogbuild

import "testing"

func TestParseRounded(t *testing.T) {
	for _, c := range []struct {
		text      string
		low, high int64
		ok        bool
	}{
		{"128K", 128000, 131072, true},
		{"1M tokens", 1000000, 1048576, true},
		{"8k", 8000, 8192, true},
		{"1.05M", 1050000, 1101004, true},
		{"256k tokens", 256000, 262144, true},
		{"128,000", 0, 0, false},
		{"about 1M", 0, 0, false},
		{"0K", 0, 0, false},
		{"", 0, 0, false},
	} {
		low, high, ok := parseRounded(c.text)
		if low != c.low || high != c.high || ok != c.ok {
			t.Errorf("parseRounded(%q) = %d, %d, %v; want %d, %d, %v", c.text, low, high, ok, c.low, c.high, c.ok)
		}
	}
}

func TestRoundedLimit(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		vals []sourced
		want int64
		from int
	}{
		{"binary value within the rounding", "128K", []sourced{{SourceModelsDev, 131072}}, 131072, 1},
		{"decimal value within the rounding", "1M", []sourced{{SourceLiteLLM, 1000000}}, 1000000, 1},
		{"data sets agree", "8K", []sourced{{SourceModelsDev, 8192}, {SourceLiteLLM, 8192}}, 8192, 2},
		{"data sets within the rounding disagree", "128K", []sourced{{SourceModelsDev, 128000}, {SourceLiteLLM, 131072}}, 128000, 0},
		{"data set outside the rounding", "8K", []sourced{{SourceModelsDev, 16384}}, 8000, 0},
		{"one in, one out", "32K", []sourced{{SourceModelsDev, 32768}, {SourceLiteLLM, 8192}}, 32768, 1},
		{"no data set", "1M tokens", nil, 1000000, 0},
	} {
		v, from := roundedLimit(c.text, c.vals)
		if v != c.want || len(from) != c.from {
			t.Errorf("%s: roundedLimit(%q) = %d from %v; want %d from %d data sets", c.name, c.text, v, from, c.want, c.from)
		}
	}
}
