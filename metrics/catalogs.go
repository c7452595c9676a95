package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/switchboard/switchboard/seeds"
)

// catalogAgeDesc is the age of each catalog source, so that an alert can fire before a stale price misleads.
var catalogAgeDesc = prometheus.NewDesc(Namespace+"_catalog_source_age_days",
	"Days since the date a catalog source's data holds for (a data set's snapshot, or the day a provider's page was read), by catalog and source id.",
	[]string{"catalog", "source"}, nil)

// catalogAgeCollector computes the ages at each scrape, at the service's clock.
type catalogAgeCollector struct {
	dates []seeds.CatalogSourceDate
	now   func() time.Time
}

func (c *catalogAgeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- catalogAgeDesc }

func (c *catalogAgeCollector) Collect(ch chan<- prometheus.Metric) {
	now := c.now()
	for _, d := range c.dates {
		ch <- prometheus.MustNewConstMetric(catalogAgeDesc, prometheus.GaugeValue, now.Sub(d.AsOf).Hours()/24, d.Catalog, d.Source)
	}
}
