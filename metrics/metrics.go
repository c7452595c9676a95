// Package metrics exposes the service's Prometheus metrics on a registry of its own: the providers' live health
// (read from the health view at scrape time), poll cycles, HTTP requests by route, webhook deliveries and x402
// payments. Nothing here is global: main builds one Metrics, hands its hooks to the parts that report, and
// serves Handler at /metrics.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/webhooks"
)

// Namespace prefixes every metric of the service.
const Namespace = "switchboard"

// UnmatchedRoute is the route label of requests no route matched: their raw paths are never used as labels, so
// that scanners probing random paths cannot grow the series without bound.
const UnmatchedRoute = "unmatched"

// HealthSource is where the provider metrics come from: the health view (health.View satisfies it).
type HealthSource interface {
	Current(ctx context.Context) (*health.Snapshot, error)
}

// Options configure New.
type Options struct {
	// Health, when set, gives the provider status and response time metrics, computed at each scrape.
	Health HealthSource
	// Now is the clock the health rule is evaluated at; time.Now by default.
	Now    func() time.Time
	Logger *slog.Logger
	// ScrapeTimeout bounds loading the health view during a scrape (it only loads when it was never loaded or
	// is older than its MaxAge); default 5 s.
	ScrapeTimeout time.Duration
}

// Metrics holds the registry and the metrics the service records.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	// byLabels keeps each label set's series (seriesKey -> requestSeries).
	byLabels     sync.Map
	pollDuration prometheus.Histogram
	pollChecks   prometheus.Counter
	pollFailures *prometheus.CounterVec
	payments     *prometheus.CounterVec
	// handlerTimeout bounds a whole scrape: the health view's load bound plus the time to render.
	handlerTimeout time.Duration
}

// New returns the metrics on a fresh registry, with the Go runtime and process collectors.
func New(o Options) *Metrics {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ScrapeTimeout <= 0 {
		o.ScrapeTimeout = 5 * time.Second
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "http_requests_total",
			Help: "HTTP requests served, by method, route template and status code.",
		}, []string{"method", "route", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "http_request_duration_seconds",
			Help:    "Time to serve HTTP requests, by method and route template.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		pollDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "poll_cycle_duration_seconds",
			Help: "Duration of poll cycles (fetching and recording every status page).",
			// A cycle is bounded by the fetch timeout + 2 s (12 s by default); slow pages push it up.
			Buckets: []float64{.25, .5, 1, 2, 3, 5, 7.5, 10, 12.5, 15, 20, 30, 60},
		}),
		pollChecks: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "poll_checks_total",
			Help: "Checks recorded by the poller (observed or failed).",
		}),
		pollFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "poll_check_failures_total",
			Help: "Checks whose status page could not be read, by failure kind.",
		}, []string{"kind"}),
		payments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "x402_payments_total",
			Help: "Calls of the paid route by payment outcome (settled, refused, unavailable, error).",
		}, []string{"outcome"}),
	}
	// The scrape's own bound covers the load it may do: a scrape cut shorter than the load it waits for answers
	// 503 while the load would have succeeded (the default: 5 s + 5 s, Prometheus's default scrape timeout).
	m.handlerTimeout = o.ScrapeTimeout + 5*time.Second
	m.reg.MustRegister(m.httpRequests, m.httpDuration, m.pollDuration, m.pollChecks, m.pollFailures, m.payments,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if o.Health != nil {
		m.reg.MustRegister(&healthCollector{o: o})
	}
	m.reg.MustRegister(&catalogAgeCollector{now: o.Now, log: o.Logger})
	return m
}

// Registry returns the registry, for tests and for registering more collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// A collector failing leaves its metrics out rather than failing the whole scrape.
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
		Timeout:             m.handlerTimeout,
	})
}

// Middleware counts requests by method, route template and code, and times them. The route is the chi route
// pattern (for API operations the OpenAPI path template, such as /api/v1/validate/{id}), known once routing ran,
// so it is read after the handler returns.
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := server.RecordStatus(w)
		next.ServeHTTP(rec, r)
		route := UnmatchedRoute
		if rc := chi.RouteContext(r.Context()); rc != nil {
			if p := rc.RoutePattern(); p != "" {
				route = p
			}
		}
		s := m.series(boundedMethod(r.Method), route, rec.Status())
		s.requests.Inc()
		s.duration.Observe(time.Since(start).Seconds())
	})
}

// seriesKey names the request series of one method, route and code. The three are bounded (the standard
// methods, the routes of the document and the service, the codes the service writes), so the map is too.
type seriesKey struct {
	method, route string
	code          int
}

type requestSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// series returns the counter and histogram of a request's labels, looked up in the vectors once: hashing the
// label values of both on every request was a fifth of the cost of the middleware chain of a replayed answer.
func (m *Metrics) series(method, route string, code int) requestSeries {
	k := seriesKey{method, route, code}
	if s, ok := m.byLabels.Load(k); ok {
		return s.(requestSeries)
	}
	s := requestSeries{m.httpRequests.WithLabelValues(method, route, strconv.Itoa(code)), m.httpDuration.WithLabelValues(method, route)}
	m.byLabels.Store(k, s)
	return s
}

// boundedMethod keeps the method label to the standard methods: any other string a client sends becomes OTHER.
func boundedMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions:
		return m
	}
	return "OTHER"
}

// ObserveCycle records one poll cycle. Pass it as poller.Config.OnCycle.
func (m *Metrics) ObserveCycle(rep poller.Report) {
	if !rep.Ended.IsZero() && !rep.Ended.Before(rep.Started) {
		m.pollDuration.Observe(rep.Ended.Sub(rep.Started).Seconds())
	}
	m.pollChecks.Add(float64(rep.Checks))
	for kind, n := range rep.Failed {
		// Failure kinds are the poller's fixed set (timeout, dns, tls, http_status, ...): bounded.
		m.pollFailures.WithLabelValues(kind).Add(float64(n))
	}
}

// ObservePayment counts one call of the paid route by outcome. Pass it as x402.Config.OnOutcome.
func (m *Metrics) ObservePayment(outcome string) {
	m.payments.WithLabelValues(outcome).Inc()
}

// RegisterWebhooks exposes a webhook worker's counters, read at each scrape from stats (webhooks.Worker.Stats).
// Call it once, when the worker exists.
func (m *Metrics) RegisterWebhooks(stats func() webhooks.Stats) {
	counter := func(name, help string, f func(webhooks.Stats) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help},
			func() float64 { return float64(f(stats())) })
	}
	m.reg.MustRegister(
		counter("webhook_events_fanned_out_total", "Outbox events fanned out to subscriptions.",
			func(s webhooks.Stats) int64 { return s.EventsFannedOut }),
		counter("webhook_delivery_attempts_total", "Webhook delivery attempts made.",
			func(s webhooks.Stats) int64 { return s.Attempts }),
		counter("webhook_deliveries_total", "Webhook delivery attempts that succeeded.",
			func(s webhooks.Stats) int64 { return s.Delivered }),
		counter("webhook_delivery_failures_total", "Webhook delivery attempts that failed.",
			func(s webhooks.Stats) int64 { return s.Failed }),
		counter("webhook_subscriptions_deactivated_total", "Webhook subscriptions deactivated (gone, failing or expired).",
			func(s webhooks.Stats) int64 { return s.Deactivated }),
		counter("webhook_subscriptions_verified_total", "Webhook subscriptions whose callback echoed the verification challenge.",
			func(s webhooks.Stats) int64 { return s.Verified }),
		counter("webhook_verification_failures_total", "Webhook verification attempts that failed.",
			func(s webhooks.Stats) int64 { return s.VerifyFailed }),
		counter("webhook_host_breakers_opened_total", "Per-host webhook breakers opened after attempts without an answer.",
			func(s webhooks.Stats) int64 { return s.BreakersOpened }),
	)
}

// RegisterAdmission exposes the admission's saturation, read at each scrape from stats (server.Options'
// ObserveAdmission hands it over): slots in use against the limit, their ratio, the clients in the gate and
// the requests refused by reason. Call it once.
func (m *Metrics) RegisterAdmission(stats func() server.AdmissionStats) {
	gauge := func(name, help string, f func(server.AdmissionStats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help},
			func() float64 { return f(stats()) })
	}
	refused := func(reason string, f func(server.AdmissionStats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: Namespace, Name: "http_admission_refused_total",
			Help: "Requests refused before a handler ran: busy (every slot taken, 503), client_busy (one client's " +
				"requests at once over its bound, 429), slow_body (a body not received in time, 408).",
			ConstLabels: prometheus.Labels{"reason": reason}},
			func() float64 { return float64(f(stats())) })
	}
	m.reg.MustRegister(
		gauge("http_in_flight_requests", "Requests holding an in-flight slot.",
			func(s server.AdmissionStats) float64 { return float64(s.InFlight) }),
		gauge("http_in_flight_limit", "In-flight slots (SWITCHBOARD_MAX_IN_FLIGHT).",
			func(s server.AdmissionStats) float64 { return float64(s.Capacity) }),
		gauge("http_saturation", "Share of the in-flight slots in use, 0 to 1: near 1, requests start to be refused with 503.",
			server.AdmissionStats.Saturation),
		gauge("http_admission_clients", "Clients with a request being read, waiting or served.",
			func(s server.AdmissionStats) float64 { return float64(s.Clients) }),
		refused("busy", func(s server.AdmissionStats) uint64 { return s.RefusedBusy }),
		refused("client_busy", func(s server.AdmissionStats) uint64 { return s.RefusedClient }),
		refused("slow_body", func(s server.AdmissionStats) uint64 { return s.RefusedSlowBody }),
	)
}
