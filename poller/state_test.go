package poller

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/store"
)

// run feeds a sequence of observed statuses ("" = a failed check) through Step and returns the changelog
// entries as "from>to", the events in order, and the incidents as "severity[open|closed]".
func run(t *testing.T, seq []parse.Status) (changes, events, incidents []string) {
	t.Helper()
	var prev *store.ProviderState
	var open *store.Incident
	all := map[string]*store.Incident{}
	var order []string
	n := 0
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i, st := range seq {
		fx := Step(prev, open, Observation{ProviderID: "groq", ProviderName: "Groq", At: at.Add(time.Duration(i) * 10 * time.Minute), Status: st},
			func() string { n++; return fmt.Sprintf("inc-%d", n) })
		if fx.Change != nil {
			changes = append(changes, string(fx.Change.From)+">"+string(fx.Change.To))
		}
		for _, e := range fx.Events {
			events = append(events, e.Type)
			if !json.Valid(e.Payload) {
				t.Fatalf("%s payload is not JSON", e.Type)
			}
		}
		if fx.NewIncident != nil {
			inc := *fx.NewIncident
			all[inc.ID] = &inc
			order = append(order, inc.ID)
		}
		if fx.UpdatedIncident != nil {
			inc := *fx.UpdatedIncident
			all[inc.ID] = &inc
		}
		if fx.State != nil {
			prev = fx.State
			open = nil
			if prev.OpenIncidentID != nil {
				open = all[*prev.OpenIncidentID]
			}
		} else if st != "" {
			t.Fatalf("an observation left no state")
		}
	}
	for _, id := range order {
		state := "open"
		if all[id].EndedAt != nil {
			state = "closed"
		}
		incidents = append(incidents, string(all[id].Severity)+"["+state+"]")
	}
	return
}

const (
	op                = parse.Operational
	deg               = parse.Degraded
	out               = parse.Outage
	fail parse.Status = ""
)

func TestStepTransitions(t *testing.T) {
	cases := []struct {
		name                       string
		seq                        []parse.Status
		changes, events, incidents []string
	}{
		{"steady", []parse.Status{op, op, op}, nil, nil, nil},
		{"first observation bad", []parse.Status{out}, nil, []string{"incident.new"}, []string{"outage[open]"}},
		{"operational to degraded", []parse.Status{op, deg},
			[]string{"operational>degraded"}, []string{"provider.degraded", "incident.new"}, []string{"degraded[open]"}},
		{"operational to outage", []parse.Status{op, out},
			[]string{"operational>outage"}, []string{"provider.down", "incident.new"}, []string{"outage[open]"}},
		{"degraded to outage escalates one incident", []parse.Status{op, deg, out},
			[]string{"operational>degraded", "degraded>outage"}, []string{"provider.degraded", "incident.new", "provider.down"}, []string{"outage[open]"}},
		{"outage to degraded keeps the worst severity", []parse.Status{op, out, deg},
			[]string{"operational>outage", "outage>degraded"}, []string{"provider.down", "incident.new"}, []string{"outage[open]"}},
		{"recovery", []parse.Status{op, out, op},
			[]string{"operational>outage", "outage>operational"}, []string{"provider.down", "incident.new", "provider.up", "incident.resolved"}, []string{"outage[closed]"}},
		{"recovery from degraded", []parse.Status{op, deg, deg, op},
			[]string{"operational>degraded", "degraded>operational"}, []string{"provider.degraded", "incident.new", "provider.up", "incident.resolved"}, []string{"degraded[closed]"}},
		{"flapping makes one incident per run", []parse.Status{op, deg, op, deg, op},
			[]string{"operational>degraded", "degraded>operational", "operational>degraded", "degraded>operational"},
			[]string{"provider.degraded", "incident.new", "provider.up", "incident.resolved", "provider.degraded", "incident.new", "provider.up", "incident.resolved"},
			[]string{"degraded[closed]", "degraded[closed]"}},
		{"failed checks change nothing", []parse.Status{op, fail, fail, op}, nil, nil, nil},
		{"failed checks inside a run do not split it", []parse.Status{op, out, fail, out, op},
			[]string{"operational>outage", "outage>operational"}, []string{"provider.down", "incident.new", "provider.up", "incident.resolved"}, []string{"outage[closed]"}},
		{"stale then back in the same state writes nothing", []parse.Status{deg, fail, fail, fail, deg}, nil, []string{"incident.new"}, []string{"degraded[open]"}},
		{"stale then recovered", []parse.Status{op, out, fail, fail, op},
			[]string{"operational>outage", "outage>operational"}, []string{"provider.down", "incident.new", "provider.up", "incident.resolved"}, []string{"outage[closed]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, ev, inc := run(t, c.seq)
			if !reflect.DeepEqual(ch, c.changes) || !reflect.DeepEqual(ev, c.events) || !reflect.DeepEqual(inc, c.incidents) {
				t.Errorf("changes %v events %v incidents %v\nwant    %v events %v incidents %v", ch, ev, inc, c.changes, c.events, c.incidents)
			}
		})
	}
}

func TestStepPayloads(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	prev := &store.ProviderState{ProviderID: "openai", LastStatus: store.OutcomeOperational, LastObservedAt: at.Add(-10 * time.Minute)}
	fx := Step(prev, nil, Observation{ProviderID: "openai", ProviderName: "OpenAI", At: at, Status: out, Summary: "Elevated errors on the API"},
		func() string { return "inc-1" })
	if len(fx.Events) != 2 {
		t.Fatalf("events = %v", fx.Events)
	}
	var p ProviderEventPayload
	json.Unmarshal(fx.Events[0].Payload, &p)
	if fx.Events[0].Type != EventProviderDown || p.PreviousStatus != "operational" || p.CurrentStatus != "outage" ||
		p.Description != "OpenAI changed from operational to outage: Elevated errors on the API" {
		t.Errorf("provider.down = %s %+v", fx.Events[0].Type, p)
	}
	var ip IncidentEventPayload
	json.Unmarshal(fx.Events[1].Payload, &ip)
	if ip.IncidentID != "inc-1" || ip.Severity != "outage" || !ip.StartedAt.Equal(at) || ip.EndedAt != nil || ip.DurationMinutes != 0 || ip.Description != "Elevated errors on the API" {
		t.Errorf("incident.new = %+v", ip)
	}
	// 25 minutes later it recovers.
	open := fx.NewIncident
	fx = Step(fx.State, open, Observation{ProviderID: "openai", ProviderName: "OpenAI", At: at.Add(25 * time.Minute), Status: op}, nil)
	json.Unmarshal(fx.Events[1].Payload, &ip)
	if fx.Events[1].Type != EventIncidentResolved || ip.EndedAt == nil || ip.DurationMinutes != 25 || fx.State.OpenIncidentID != nil {
		t.Errorf("incident.resolved = %s %+v, state %+v", fx.Events[1].Type, ip, fx.State)
	}
}
