package poller

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/store"
)

// The event types of the contract.
const (
	EventProviderDown     = "provider.down"
	EventProviderUp       = "provider.up"
	EventProviderDegraded = "provider.degraded"
	EventIncidentNew      = "incident.new"
	EventIncidentResolved = "incident.resolved"
)

// Observation is one check as the state machine sees it.
type Observation struct {
	ProviderID   string
	ProviderName string
	At           time.Time
	Status       parse.Status // empty when the check observed nothing (a failed fetch)
	Summary      string       // the page's own words, for descriptions
}

// Effects is what one check changes: the parts of a store.CheckResult besides the check itself.
type Effects struct {
	State           *store.ProviderState
	Change          *store.StatusChange
	NewIncident     *store.Incident
	UpdatedIncident *store.Incident
	Events          []store.OutboxEvent
}

// ProviderEventPayload is the payload of provider.down, provider.up and provider.degraded.
type ProviderEventPayload struct {
	ProviderID     string `json:"provider_id"`
	PreviousStatus string `json:"previous_status"`
	CurrentStatus  string `json:"current_status"`
	Description    string `json:"description"`
}

// IncidentEventPayload is the payload of incident.new and incident.resolved.
type IncidentEventPayload struct {
	ProviderID      string     `json:"provider_id"`
	IncidentID      string     `json:"incident_id"`
	Severity        string     `json:"severity"`
	StartedAt       time.Time  `json:"started_at"`
	EndedAt         *time.Time `json:"ended_at"`
	DurationMinutes float64    `json:"duration_minutes"`
	Description     string     `json:"description"`
}

// Step applies one observation to a provider's state, as docs/decisions.md decides:
//   - unknown is not an observation: a failed check changes nothing (staleness is judged when reading);
//   - every change between the three observed statuses is a changelog entry, compared with the last observed;
//   - entering outage emits provider.down; entering degraded from operational, provider.degraded; reaching
//     operational from degraded or outage, provider.up;
//   - an incident is a maximal run of non-operational observations: its first check emits incident.new, its
//     severity is the worst seen, the first operational observation ends it and emits incident.resolved.
//
// The very first observation of a provider has nothing to compare with: it writes no changelog entry and no
// provider.* event, but a bad first observation does start an incident. prev and open are nil when absent;
// newID makes incident IDs.
func Step(prev *store.ProviderState, open *store.Incident, obs Observation, newID func() string) Effects {
	var fx Effects
	if obs.Status == "" {
		return fx
	}
	now := obs.At.UTC()
	cur := store.Outcome(obs.Status)
	next := store.ProviderState{ProviderID: obs.ProviderID, LastStatus: cur, LastObservedAt: now}
	if open != nil {
		next.OpenIncidentID = &open.ID
	}

	if prev != nil && prev.LastStatus != cur {
		fx.Change = &store.StatusChange{ProviderID: obs.ProviderID, ChangedAt: now, From: prev.LastStatus, To: cur}
		var event string
		switch {
		case cur == store.OutcomeOutage:
			event = EventProviderDown
		case cur == store.OutcomeDegraded && prev.LastStatus == store.OutcomeOperational:
			event = EventProviderDegraded
		case cur == store.OutcomeOperational:
			event = EventProviderUp
		}
		if event != "" {
			fx.Events = append(fx.Events, newEvent(event, obs.ProviderID, now, ProviderEventPayload{
				ProviderID: obs.ProviderID, PreviousStatus: string(prev.LastStatus), CurrentStatus: string(cur),
				Description: changeText(obs, prev.LastStatus, cur),
			}))
		}
	}

	switch {
	case cur != store.OutcomeOperational && open == nil:
		inc := store.Incident{
			ID: newID(), ProviderID: obs.ProviderID, Severity: cur, StartedAt: now,
			Description: incidentText(obs, cur),
		}
		fx.NewIncident = &inc
		next.OpenIncidentID = &inc.ID
		fx.Events = append(fx.Events, newEvent(EventIncidentNew, obs.ProviderID, now, incidentPayload(inc, now)))
	case cur != store.OutcomeOperational && open != nil && severer(cur, open.Severity):
		inc := *open
		inc.Severity = cur
		if obs.Summary != "" {
			inc.Description = incidentText(obs, cur)
		}
		fx.UpdatedIncident = &inc
	case cur == store.OutcomeOperational && open != nil:
		inc := *open
		inc.EndedAt = &now
		fx.UpdatedIncident = &inc
		next.OpenIncidentID = nil
		fx.Events = append(fx.Events, newEvent(EventIncidentResolved, obs.ProviderID, now, incidentPayload(inc, now)))
	}
	fx.State = &next
	return fx
}

func severer(a, b store.Outcome) bool {
	return parse.Worst(parse.Status(a), parse.Status(b)) == parse.Status(a) && a != b
}

func newEvent(kind, providerID string, at time.Time, payload any) store.OutboxEvent {
	b, err := json.Marshal(payload)
	if err != nil {
		// The payloads are plain structs of strings, numbers and times: this cannot fail.
		panic(fmt.Sprintf("marshalling %s payload: %v", kind, err))
	}
	return store.OutboxEvent{Type: kind, ProviderID: providerID, Payload: b, CreatedAt: at}
}

func incidentPayload(inc store.Incident, now time.Time) IncidentEventPayload {
	end := now
	if inc.EndedAt != nil {
		end = *inc.EndedAt
	}
	return IncidentEventPayload{
		ProviderID: inc.ProviderID, IncidentID: inc.ID, Severity: string(inc.Severity), StartedAt: inc.StartedAt,
		EndedAt: inc.EndedAt, DurationMinutes: DurationMinutes(inc.StartedAt, end), Description: inc.Description,
	}
}

// DurationMinutes is the length of [start, end] in minutes, to one decimal.
func DurationMinutes(start, end time.Time) float64 {
	d := end.Sub(start).Minutes()
	if d < 0 {
		d = 0
	}
	return math.Round(d*10) / 10
}

func changeText(obs Observation, from, to store.Outcome) string {
	s := fmt.Sprintf("%s changed from %s to %s", obs.ProviderName, from, to)
	if obs.Summary != "" && to != store.OutcomeOperational {
		s += ": " + obs.Summary
	}
	return s
}

func incidentText(obs Observation, sev store.Outcome) string {
	if obs.Summary != "" {
		return obs.Summary
	}
	return fmt.Sprintf("%s reported %s", obs.ProviderName, sev)
}
