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
