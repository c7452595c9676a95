package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

const sample = `{"Action":"start","Package":"example/a"}
{"Action":"run","Package":"example/a","Test":"TestOK"}
{"Action":"output","Package":"example/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"example/a","Test":"TestOK","Output":"quiet detail\n"}
{"Action":"pass","Package":"example/a","Test":"TestOK","Elapsed":0.5}
{"Action":"run","Package":"example/a","Test":"TestBad"}
{"Action":"output","Package":"example/a","Test":"TestBad","Output":"    a_test.go:9: want 2, got 3\n"}
{"Action":"fail","Package":"example/a","Test":"TestBad","Elapsed":2.25}
{"Action":"output","Package":"example/a","Output":"FAIL\n"}
{"Action":"output","Package":"example/a","Output":"FAIL\texample/a\t3.0s\n"}
{"Action":"fail","Package":"example/a","Elapsed":3}
{"Action":"run","Package":"example/store","Test":"TestSuite"}
{"Action":"run","Package":"example/store","Test":"TestSuite/sqlite"}
{"Action":"pass","Package":"example/store","Test":"TestSuite/sqlite","Elapsed":1.5}
{"Action":"pass","Package":"example/store","Test":"TestSuite","Elapsed":1.5}
{"Action":"output","Package":"example/store","Output":"ok  \texample/store\t9.5s\n"}
{"Action":"pass","Package":"example/store","Elapsed":9.5}
not json: a build error
`

func TestReportPrintsFailuresAndListedSubtests(t *testing.T) {
	var out, raw bytes.Buffer
	failed, err := report(strings.NewReader(sample), &out, &raw, regexp.MustCompile(`/store$`))
	if err != nil || !failed {
		t.Fatalf("report = %v, %v; want failed", failed, err)
	}
	got := out.String()
	for _, want := range []string{"a_test.go:9: want 2, got 3", "FAIL\texample/a\t3.0s", "--- PASS: TestSuite/sqlite", "ok  \texample/store\t9.5s", "not json: a build error"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "quiet detail") {
		t.Errorf("a passing test's output was printed:\n%s", got)
	}
	if raw.String() != sample {
		t.Errorf("raw copy differs from the input")
	}
}

func TestTimesSlowestFirst(t *testing.T) {
	var out bytes.Buffer
	if err := times(strings.NewReader(sample), &out, 5); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	store, a := strings.Index(got, "example/store"), strings.Index(got, "example/a")
	if store < 0 || a < 0 || store > a {
		t.Errorf("packages not slowest first:\n%s", got)
	}
	if !strings.Contains(got, "12.5") { // the sum of 9.5 and 3
		t.Errorf("no sum:\n%s", got)
	}
	at := strings.Index(got, "slowest tests")
	if at < 0 {
		t.Fatalf("no slowest tests:\n%s", got)
	}
	tests := got[at:]
	if strings.Index(tests, "TestBad") > strings.Index(tests, "TestOK") || strings.Contains(tests, "TestSuite/sqlite") {
		t.Errorf("tests not slowest first, or subtests listed:\n%s", tests)
	}
}
