package metrics

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/switchboard/switchboard/seeds"
)

// catalogAgeDesc is the age of each catalog source, so that an alert can fire before a stale price misleads.
var catalogAgeDesc = prometheus.NewDesc(Namespace+"_catalog_source_age_days",
	"Days since the date a catalog source's data holds for (a data set's snapshot, or the day a provider's page was read), by catalog and source id.",
	[]string{"catalog", "source"}, nil)

// catalogAgeCollector computes the ages at each scrape, at the service's clock, from the catalogs in service (a
// run-time refresh moves them).
type catalogAgeCollector struct {
	now func() time.Time
	log *slog.Logger
}

func (c *catalogAgeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- catalogAgeDesc }

func (c *catalogAgeCollector) Collect(ch chan<- prometheus.Metric) {
	now := c.now()
	dates, err := seeds.CatalogSourceDates()
	if err != nil {
		c.log.Error("catalog source ages are not exported", "err", err)
		return
	}
	for _, d := range dates {
		ch <- prometheus.MustNewConstMetric(catalogAgeDesc, prometheus.GaugeValue, now.Sub(d.AsOf).Hours()/24, d.Catalog, d.Source)
	}
}

// CatalogRefresh is what the catalog refresh reports to the metrics (refresh.Refresher.Stats).
type CatalogRefresh struct {
	// Held is true while a build waits for an operator (its changes exceed the refresh's limits).
	Held bool
	// HeldBuilds counts the builds this process held since it started.
	HeldBuilds int64
}

// RegisterCatalogRefresh exposes the catalog refresh's state, read at each scrape from stats. Call it once.
func (m *Metrics) RegisterCatalogRefresh(stats func() CatalogRefresh) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "catalog_build_held",
			Help: "1 while a catalog build that moves too much waits for `switchboard catalogs approve|reject <digest>`, else 0."},
			func() float64 {
				if stats().Held {
					return 1
				}
				return 0
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: Namespace, Name: "catalog_builds_held_total",
			Help: "Catalog builds this process held for an operator."},
			func() float64 { return float64(stats().HeldBuilds) }),
	)
}
