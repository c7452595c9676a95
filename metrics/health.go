package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/switchboard/switchboard/health"
)

var (
	providerStatusDesc = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "provider_status"),
		"Live status of a provider: 1 for its current status, 0 for the others.", []string{"provider", "status"}, nil)
	providerResponseDesc = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "provider_response_time_ms"),
		"Time the latest check took to fetch the provider's status page, in milliseconds (absent when it got no time).",
		[]string{"provider"}, nil)
	providerLastCheckDesc = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "provider_last_check_timestamp_seconds"),
		"Unix time of the provider's last check that observed a status (absent when none ever did).",
		[]string{"provider"}, nil)
)

// statuses are every value of the status label, so that a provider's series exist for all four and alerts can
// match on status="outage" == 1 without absent() tricks.
var statuses = []health.Status{health.StatusOperational, health.StatusDegraded, health.StatusOutage, health.StatusUnknown}

// healthCollector computes the provider metrics from the health view at scrape time: they always say what the
// API says, and nothing has to keep them up to date.
type healthCollector struct {
	o Options
}

func (c *healthCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- providerStatusDesc
	ch <- providerResponseDesc
	ch <- providerLastCheckDesc
}

func (c *healthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.o.ScrapeTimeout)
	defer cancel()
	snap, err := c.o.Health.Current(ctx)
	if err != nil {
		// The scrape goes on without the provider metrics; their absence is what alerts should catch.
		c.o.Logger.Error("metrics: loading the health view", "error", err)
		ch <- prometheus.NewInvalidMetric(providerStatusDesc, err)
		return
	}
	rep := snap.Health(c.o.Now())
	for id, h := range rep.Providers {
		for _, st := range statuses {
			v := 0.0
			if h.Status == st {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(providerStatusDesc, prometheus.GaugeValue, v, id, string(st))
		}
		if h.ResponseTimeMs != nil {
			ch <- prometheus.MustNewConstMetric(providerResponseDesc, prometheus.GaugeValue, *h.ResponseTimeMs, id)
		}
		if h.LastChecked != nil {
			ch <- prometheus.MustNewConstMetric(providerLastCheckDesc, prometheus.GaugeValue,
				float64(h.LastChecked.UnixMilli())/1000, id)
		}
	}
}
