// Package parse reads the status pages of the formats in docs/statuspage-formats.md and says what a
// page reports about a provider's API: operational, degraded or outage. A body whose shape is not the format's
// is an error wrapping ErrUnparseable: the poller records that as a failed check, never as an outage.
package parse

import (
	"errors"
	"sort"
	"time"
)

// Status is what a page reports.
type Status string

// The three statuses a page can report. "unknown" is not a reading: it is the absence of one.
const (
	Operational Status = "operational"
	Degraded    Status = "degraded"
	Outage      Status = "outage"
)

// rank orders statuses from best to worst.
func (s Status) rank() int {
	switch s {
	case Operational:
		return 0
	case Degraded:
		return 1
	case Outage:
		return 2
	}
	return -1
}

// Worst returns the worse of a and b.
func Worst(a, b Status) Status {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// Reading is what one status page says about a provider's API.
type Reading struct {
	Status Status
	// Maintenance is true when maintenance in progress affects a scoped component (it then reads degraded).
	Maintenance bool
	// Summary is a short text from the page (at most 200 characters): the worst open incident's name or the
	// affected component; empty when all is clear.
	Summary string
}

// Scope narrows a page to the parts that stand for the provider's API.
type Scope struct {
	// Components are names or IDs of the components that stand for the API, matched case-insensitively against
	// a component's ID or exact name. Empty means the whole page.
	Components []string
	// Keywords select the entries of pages without components (Google Cloud product titles or IDs, AWS service
	// names, RSS item titles), matched case-insensitively as substrings. Empty means every entry.
	Keywords []string
	// DisruptionTop says a feed's own scale tops out at "disruption" (Status.io), so that a disruption there reads
	// outage. Elsewhere a scale also has an outage level and a disruption reads degraded (formats doc section 9).
	DisruptionTop bool
}

// ErrUnparseable marks a body that is not a page of the expected format (HTML where JSON was expected, a
// truncated body, a missing required field).
var ErrUnparseable = errors.New("unparseable status page")

// Parser reads one fetched body. now is the time of the fetch, for formats that judge entries by age.
type Parser func(body []byte, scope Scope, now time.Time) (Reading, error)

var parsers = map[string]Parser{}

// register is called by each format's file in its init.
func register(format string, p Parser) { parsers[format] = p }

// Get returns the parser of a format of providers.json.
func Get(format string) (Parser, bool) {
	p, ok := parsers[format]
	return p, ok
}

// Formats lists the registered formats, sorted.
func Formats() []string {
	out := make([]string, 0, len(parsers))
	for f := range parsers {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
