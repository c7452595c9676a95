package metrics_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/metrics"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/simulator"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/webhooks"
	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

type env struct {
	url   string
	st    store.Store
	view  *health.View
	m     *metrics.Metrics
	quiet *slog.Logger
}

func start(t *testing.T) *env { return startWith(t, nil) }

// startWith serves the API with /metrics over a fresh SQLite store; payments, when set, enable the paid route.
func startWith(t *testing.T, payments *x402.Config) *env {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "m.db"), store.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	view := health.New(st, health.Options{Providers: seeds.Providers(), Logger: log})
	// A scrape's first load of the health view, bounded for liveness only: 5 s was seen to pass under -race on
	// a loaded machine.
	m := metrics.New(metrics.Options{Health: view, Logger: log, ScrapeTimeout: time.Minute})
	m.RegisterWebhooks(func() webhooks.Stats { return webhooks.Stats{Attempts: 3, Delivered: 2, Failed: 1} })
	deps := impl.Deps{Store: st, Logger: log, Providers: seeds.Providers(), Health: view}
	if payments != nil {
		payments.OnOutcome = m.ObservePayment
		deps.Payments = *payments
	}
	h, err := server.NewHandler(ctx, server.Options{
		API: impl.New(deps), Store: st, Logger: log,
		Metrics: m.Handler(), Instrument: m.Middleware, MaxInFlight: 8, ObserveAdmission: m.RegisterAdmission,
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &env{url: hs.URL, st: st, view: view, m: m, quiet: log}
}

// scrape fetches /metrics and parses it with the Prometheus text parser.
func (e *env) scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(e.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics = %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// value is the sum of the family's series whose labels include want.
func value(f *dto.MetricFamily, want map[string]string) (float64, bool) {
	var sum float64
	found := false
next:
	for _, m := range f.GetMetric() {
		ls := labels(m)
		for k, v := range want {
			if ls[k] != v {
				continue next
			}
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum, found
}

func TestProviderMetrics(t *testing.T) {
	e := start(t)
	fams := e.scrape(t)
	st := fams["switchboard_provider_status"]
	if st == nil {
		t.Fatal("no switchboard_provider_status")
	}
	perProvider := map[string]float64{}
	for _, m := range st.GetMetric() {
		perProvider[labels(m)["provider"]] += m.Gauge.GetValue()
	}
	if len(perProvider) != 52 || len(seeds.Providers().All()) != 52 {
		t.Fatalf("%d providers in the status metric, want 52", len(perProvider))
	}
	for id, sum := range perProvider {
		if sum != 1 {
			t.Errorf("%s: %v statuses set, want exactly 1", id, sum)
		}
	}
	if v, _ := value(st, map[string]string{"status": "unknown"}); v != 52 {
		t.Errorf("unknown = %v before any check, want 52", v)
	}
	if v, ok := value(fams["switchboard_webhook_delivery_failures_total"], nil); !ok || v != 1 {
		t.Errorf("webhook failures = %v %v", v, ok)
	}
}

func TestHTTPMetricsUseRouteTemplates(t *testing.T) {
	e := start(t)
	for _, p := range []string{"/api/v1/validate/abc123", "/api/v1/validate/zzz999", "/api/v1/health", "/no/such/path/42"} {
		resp, err := http.Get(e.url + p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	fams := e.scrape(t)
	reqs := fams["switchboard_http_requests_total"]
	if reqs == nil {
		t.Fatal("no switchboard_http_requests_total")
	}
	for _, m := range reqs.GetMetric() {
		r := labels(m)["route"]
		if strings.Contains(r, "abc123") || strings.Contains(r, "zzz999") || strings.Contains(r, "/no/such") {
			t.Errorf("raw path in a route label: %q", r)
		}
	}
	if v, _ := value(reqs, map[string]string{"route": "/api/v1/validate/{id}", "method": "GET"}); v != 2 {
		t.Errorf("/api/v1/validate/{id} counted %v times, want 2", v)
	}
	if v, _ := value(reqs, map[string]string{"route": "/api/v1/health", "code": "200"}); v != 1 {
		t.Errorf("/api/v1/health 200 counted %v times, want 1", v)
	}
	if v, _ := value(reqs, map[string]string{"route": metrics.UnmatchedRoute, "code": "404"}); v != 1 {
		t.Errorf("unmatched 404 counted %v times, want 1", v)
	}
	if v, _ := value(fams["switchboard_http_request_duration_seconds"], map[string]string{"route": "/api/v1/health"}); v != 1 {
		t.Errorf("latency histogram count = %v, want 1", v)
	}
}

func TestPollCycleMetrics(t *testing.T) {
	e := start(t)
	sim := simulator.New(seeds.Providers().All())
	t.Cleanup(sim.Close)
	ss := httptest.NewServer(sim.Handler())
	t.Cleanup(ss.Close)
	p, err := poller.New(poller.Config{StatusBaseURL: ss.URL, Timeout: 5 * time.Second, Outbound: netguard.Options{AllowLoopback: true}, OnCycle: e.m.ObserveCycle},
		e.st, seeds.Providers().All(), e.quiet)
	if err != nil {
		t.Fatal(err)
	}
	rep := p.RunCycle(context.Background())
	if err := e.view.Refresh(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	fams := e.scrape(t)
	if v, _ := value(fams["switchboard_poll_cycle_duration_seconds"], nil); v != 1 {
		t.Errorf("poll cycles observed = %v, want 1", v)
	}
	if v, _ := value(fams["switchboard_poll_checks_total"], nil); v != float64(rep.Checks) || v == 0 {
		t.Errorf("checks = %v, report says %d", v, rep.Checks)
	}
	unknown, _ := value(fams["switchboard_provider_status"], map[string]string{"status": "unknown"})
	if unknown >= 52 {
		t.Errorf("every provider still unknown after a cycle")
	}
	if n := len(fams["switchboard_provider_response_time_ms"].GetMetric()); n == 0 {
		t.Error("no response times after a cycle")
	}
}

// TestPaymentOutcomes pays the premium route through x402.Config.OnOutcome: a call without payment is refused,
// a signed one is settled by the test facilitator, one whose facilitator is down is unavailable.
func TestPaymentOutcomes(t *testing.T) {
	fac := x402test.NewFacilitator(t)
	cfg := x402test.Config(t, fac.URL)
	e := startWith(t, &cfg)
	get := func(header string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, e.url+impl.PremiumPath, nil)
		if header != "" {
			req.Header.Set("X-PAYMENT", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	code, body := get("")
	if code != http.StatusPaymentRequired {
		t.Fatalf("without payment: %d %s", code, body)
	}
	var pr x402.PaymentRequired
	if err := json.Unmarshal(body, &pr); err != nil || len(pr.Accepts) != 1 {
		t.Fatalf("402 body %s: %v", body, err)
	}
	payer := x402test.NewPayer(t)
	if code, body := get(x402test.Header(t, payer.Payload(t, pr.Accepts[0], time.Now()))); code != http.StatusOK {
		t.Fatalf("paid: %d %s", code, body)
	}
	fams := e.scrape(t)
	for outcome, want := range map[string]float64{x402.OutcomeRefused: 1, x402.OutcomeSettled: 1, x402.OutcomeUnavailable: 0} {
		if v, _ := value(fams["switchboard_x402_payments_total"], map[string]string{"outcome": outcome}); v != want {
			t.Errorf("%s = %v, want %v", outcome, v, want)
		}
	}
}

// TestCatalogSourceAges: every source of every catalog has its age in days, computed at the service's clock.
func TestCatalogSourceAges(t *testing.T) {
	dates, err := seeds.CatalogSourceDates()
	if err != nil || len(dates) < 50 {
		t.Fatalf("catalog source dates: %d, %v", len(dates), err)
	}
	d := dates[0]
	now := d.AsOf.Add(10 * 24 * time.Hour)
	m := metrics.New(metrics.Options{Now: func() time.Time { return now }})
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "switchboard_catalog_source_age_days" {
			continue
		}
		if len(f.GetMetric()) != len(dates) {
			t.Errorf("%d series, want one per catalog source (%d)", len(f.GetMetric()), len(dates))
		}
		if v, ok := value(f, map[string]string{"catalog": d.Catalog, "source": d.Source}); !ok || v != 10 {
			t.Errorf("%s/%s age = %v (%v), want 10 days", d.Catalog, d.Source, v, ok)
		}
		return
	}
	t.Fatal("no switchboard_catalog_source_age_days")
}

// TestAdmissionSaturation: the admission's state is scraped as gauges (slots in use, the limit, their ratio)
// and refusals by reason.
func TestAdmissionSaturation(t *testing.T) {
	e := start(t)
	fams := e.scrape(t)
	for name, want := range map[string]float64{
		"switchboard_http_in_flight_requests": 0, // the scrape holds no slot: /metrics is outside the API
		"switchboard_http_in_flight_limit":    8,
		"switchboard_http_saturation":         0,
	} {
		f, ok := fams[name]
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		if v, _ := value(f, nil); v != want {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	f, ok := fams["switchboard_http_admission_refused_total"]
	if !ok {
		t.Fatal("switchboard_http_admission_refused_total missing")
	}
	for _, reason := range []string{"busy", "client_busy", "slow_body"} {
		if _, ok := value(f, map[string]string{"reason": reason}); !ok {
			t.Errorf("no refusals series for reason %s", reason)
		}
	}
}
