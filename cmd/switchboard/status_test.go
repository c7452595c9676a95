package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/store"
)

// recordHistory feeds observations through the poller's state machine into st, as a poll cycle does:
// openai operational then outage 2 minutes ago (an open incident), mistral degraded 5 minutes ago, groq
// operational 1 minute ago at 120 ms.
func recordHistory(t *testing.T, st store.Store, now time.Time) {
	prev := map[string]*store.ProviderState{}
	open := map[string]*store.Incident{}
	n := 0
	check := func(id string, at time.Time, s parse.Status, rt float64) {
		fx := poller.Step(prev[id], open[id], poller.Observation{ProviderID: id, ProviderName: id, At: at, Status: s},
			func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) })
		c := store.Check{ProviderID: id, CheckedAt: at, Outcome: store.Outcome(s), ResponseTimeMs: &rt}
		if _, err := st.RecordCheckResult(context.Background(), store.CheckResult{Check: c, State: fx.State, Change: fx.Change,
			NewIncident: fx.NewIncident, UpdatedIncident: fx.UpdatedIncident, Events: fx.Events}); err != nil {
			t.Fatal(err)
		}
		if fx.State != nil {
			prev[id] = fx.State
		}
		if fx.NewIncident != nil {
			open[id] = fx.NewIncident
		}
	}
	check("openai", now.Add(-12*time.Minute), parse.Operational, 200)
	check("openai", now.Add(-2*time.Minute), parse.Outage, 900)
	check("mistral", now.Add(-15*time.Minute), parse.Operational, 400)
	check("mistral", now.Add(-5*time.Minute), parse.Degraded, 4200)
	check("groq", now.Add(-time.Minute), parse.Operational, 120)
}

func startStatusServer(t *testing.T) (*apitest.Server, time.Time) {
	t.Helper()
	for _, e := range dbtest.Engines(t) {
		if e.Name != "sqlite" {
			continue
		}
		st, _ := e.Open(t)
		now := time.Now().UTC()
		recordHistory(t, st, now)
		view := health.New(st, health.Options{})
		if err := view.Refresh(context.Background(), time.Now()); err != nil {
			t.Fatal(err)
		}
		return apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Health: view})}), now
	}
	t.Fatal("no sqlite engine")
	return nil, time.Time{}
}

func TestStatusTable(t *testing.T) {
	s, _ := startStatusServer(t)
	var out, errOut bytes.Buffer
	env := func(k string) string { return map[string]string{"SWITCHBOARD_SERVER": s.URL}[k] }
	if err := run(context.Background(), []string{"status"}, env, &out, &errOut); err != nil {
		t.Fatalf("status: %v (%s)", err, errOut.String())
	}
	text := out.String()
	if strings.Contains(text, "\x1b[") {
		t.Error("colour codes written to a non-terminal")
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) != 1+52+2 {
		t.Fatalf("%d lines, want header + 52 + blank + summary:\n%s", len(lines), text)
	}
	rows := lines[1:53]
	// Worst first: outage, degraded, unknown (by name), operational.
	wantFirst := []string{"openai", "mistral"}
	for i, id := range wantFirst {
		if f := strings.Fields(rows[i]); f[0] != id {
			t.Errorf("row %d = %q, want %s", i, rows[i], id)
		}
	}
	if f := strings.Fields(rows[51]); f[0] != "groq" || f[1] != "operational" {
		t.Errorf("last row = %q, want groq operational", rows[51])
	}
	if !regexp.MustCompile(`^openai\s+outage\s+2m ago\s+900 ms$`).MatchString(rows[0]) {
		t.Errorf("openai row = %q", rows[0])
	}
	var unknown []string
	for _, r := range rows[2:51] {
		f := strings.Fields(r)
		if f[1] != "unknown" || !strings.Contains(r, "never") {
			t.Errorf("middle row not unknown: %q", r)
		}
		unknown = append(unknown, f[0])
	}
	for i := 1; i < len(unknown); i++ {
		if unknown[i-1] > unknown[i] {
			t.Errorf("unknown rows not by name: %s before %s", unknown[i-1], unknown[i])
		}
	}
	// Aligned: every column starts at the header's offset.
	for _, col := range []string{"STATUS", "LAST CHECK", "RESPONSE"} {
		off := strings.Index(lines[0], col)
		for _, r := range rows {
			if r[off-1] != ' ' || r[off] == ' ' {
				t.Errorf("column %s not aligned at %d in %q", col, off, r)
			}
		}
	}
	if !strings.HasPrefix(lines[len(lines)-1], "52 providers: 1 outage, 1 degraded, 49 unknown, 1 operational") {
		t.Errorf("summary = %q", lines[len(lines)-1])
	}
}

func TestStatusColour(t *testing.T) {
	s, _ := startStatusServer(t)
	var out, errOut bytes.Buffer
	c, err := newStatusCmd(s.URL, &out, &errOut, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.table(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\x1b[1;31moutage     \x1b[0m") {
		t.Errorf("outage not coloured and padded:\n%q", strings.SplitN(out.String(), "\n", 3)[1])
	}
}

func TestStatusDetail(t *testing.T) {
	s, _ := startStatusServer(t)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"status", "openai", "--server", s.URL}, func(string) string { return "" }, &out, &errOut); err != nil {
		t.Fatalf("status openai: %v (%s)", err, errOut.String())
	}
	text := out.String()
	for _, re := range []string{
		`(?m)^provider\s+openai$`, `(?m)^status\s+outage$`, `(?m)^last check\s+2m ago \(`, `(?m)^response time\s+900 ms$`,
		`(?m)^latency \(24h\)\s+p50 \d+ ms, p95 \d+ ms, p99 \d+ ms, avg 550 ms over 2 checks`,
		`(?m)^open incidents: 1$`, `(?m)^  outage since \S+ \(2m ago`,
		`(?m)^latest changes: 1$`, `(?m)^  \S+  operational -> outage  `,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("detail does not match %s:\n%s", re, text)
		}
	}
}

func TestStatusUnknownProvider(t *testing.T) {
	s, _ := startStatusServer(t)
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"status", "--server", s.URL, "nosuchprovider"}, func(string) string { return "" }, &out, &errOut)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("err = %v, want exit code 1", err)
	}
	if !strings.Contains(errOut.String(), "nosuchprovider") || out.Len() != 0 {
		t.Errorf("stderr %q, stdout %q: want the server's 404 error on stderr only", errOut.String(), out.String())
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{30 * time.Second: "30s ago", 3 * time.Minute: "3m ago",
		5 * time.Hour: "5h ago", 72 * time.Hour: "3d ago"} {
		at := now.Add(-d)
		if got := ago(&at, now); got != want {
			t.Errorf("ago(%s) = %q, want %q", d, got, want)
		}
	}
	if ago(nil, now) != "never" {
		t.Error("nil time")
	}
}

func TestStatusWatch(t *testing.T) {
	s, _ := startStatusServer(t)
	var out, errOut bytes.Buffer
	c, err := newStatusCmd(s.URL, &out, &errOut, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	refreshes := 0
	err = c.watch(ctx, 20*time.Millisecond, func(ctx context.Context) error {
		refreshes++
		if refreshes == 3 {
			cancel() // Ctrl-C during the third refresh
		}
		return c.table(ctx)
	})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	if n := strings.Count(out.String(), "52 providers:"); n != 2 || refreshes != 3 {
		t.Errorf("%d tables over %d refreshes, want 2 (the third was interrupted) over 3", n, refreshes)
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Error("screen cleared on a non-terminal")
	}
}
