package parse

import (
	"time"
)

// Azure status RSS (statuspage-formats.md section 8): RSS 2.0 that lists only current broad incidents and is
// empty when Azure is healthy. There is no severity, component or region field.
//
// Decisions:
//   - No item (an empty channel) is operational. An item is open unless its title or description carries a closing
//     marker (the generic feed markers: [RESOLVED], "Resolved:", "Mitigated:", "Status: Resolved", ...).
//   - Scope: keywords ("OpenAI", "Foundry", ...) select items by title and description; no keywords means every
//     item.
//   - Severity: degraded; outage only on explicit wording in the title or description: "outage" (not a "partial"
//     or "minor" one), "unavailable" or "unable to access", as the doc says.
//   - Age: the feed drops items when they are over, so an item counts while its pubDate is within
//     closingFeedMaxAge (7 days); an undated item counts. Maintenance items follow the generic feed rules
//     (in progress -> degraded with the maintenance flag; future -> ignored).
//   - Atom is read too (by its root), in case the feed ever changes flavour.

func init() { register("azure-status", safe("azure-status", parseAzure)) }

func parseAzure(body []byte, scope Scope, now time.Time) (Reading, error) {
	f, err := decodeFeed("azure-status", body)
	if err != nil {
		return Reading{}, err
	}
	return f.evaluate(scope, clock(now), feedPolicy{
		maxAge:      closingFeedMaxAge,
		undatedOpen: true,
		outage:      []string{"outage", "unavailable", "unable to access"},
		outageIn:    outageInTitleAndText,
		groupKey:    defaultGroupKey,
	}), nil
}
