package impl_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
)

// testFailoverExport: each format answers the failover ranking (same providers, same order, primary first) as that
// gateway's configuration; every target's gateway model is in the config, every ranked provider is a target or
// skipped with a reason, and apitest validates the answer (config's oneOf included) against the document.
func testFailoverExport(t *testing.T, s *apitest.Server) {
	var f api.FailoverResponse
	get(t, s, "/api/v1/failover?primary=openai&task=llm&limit=10", &f)
	ranking := []string{"openai"}
	for _, e := range f.FailoverChain {
		ranking = append(ranking, e.ProviderId)
	}
	for _, format := range []string{"litellm", "portkey", "openrouter"} {
		t.Run(format, func(t *testing.T) {
			var ex api.FailoverExport
			r := get(t, s, "/api/v1/failover/export?primary=openai&task=llm&limit=10&format="+format, &ex)
			if cc := r.Header.Get("Cache-Control"); cc != "no-cache" {
				t.Errorf("Cache-Control = %q", cc)
			}
			if ex.Primary != "openai" || string(ex.Format) != format || ex.Note == "" || time.Since(ex.GeneratedAt) > time.Minute {
				t.Errorf("head = %s %s %v %q", ex.Primary, ex.Format, ex.GeneratedAt, ex.Note)
			}
			// Targets then skipped cover the ranking, each provider once, targets in ranking order.
			var got []string
			pos := map[string]int{}
			for i, id := range ranking {
				pos[id] = i
			}
			last := -1
			for _, tg := range ex.Targets {
				got = append(got, tg.ProviderId)
				if pos[tg.ProviderId] < last {
					t.Errorf("target %s out of ranking order", tg.ProviderId)
				}
				last = pos[tg.ProviderId]
				if tg.ModelId == "" || tg.GatewayModel == "" {
					t.Errorf("target %+v", tg)
				}
				if (tg.ProviderId == "openai") != (tg.Score == nil) {
					t.Errorf("score of %s = %v: only the primary has none", tg.ProviderId, tg.Score)
				}
			}
			for _, sk := range ex.Skipped {
				got = append(got, sk.ProviderId)
				if sk.Reason == "" {
					t.Errorf("skipped %s without a reason", sk.ProviderId)
				}
			}
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(ranking))) {
				t.Errorf("targets and skipped = %v, ranking %v", got, ranking)
			}
			if len(ex.Targets) < 2 {
				t.Fatalf("only %d targets: %s", len(ex.Targets), r.Body)
			}
			if ex.Targets[0].ProviderId != "openai" {
				t.Errorf("first target %s, want the primary", ex.Targets[0].ProviderId)
			}
			var names []string
			switch format {
			case "litellm":
				c, err := ex.Config.AsLiteLLMConfig()
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range c.ModelList {
					names = append(names, m.LitellmParams.Model)
				}
				fb := c.RouterSettings.Fallbacks
				if len(fb) != 1 || len(fb[0][ex.Targets[0].GatewayModel]) != len(ex.Targets)-1 {
					t.Errorf("fallbacks = %v", fb)
				}
			case "portkey":
				c, err := ex.Config.AsPortkeyConfig()
				if err != nil {
					t.Fatal(err)
				}
				if c.Strategy.Mode != "fallback" {
					t.Errorf("mode %s", c.Strategy.Mode)
				}
				for _, tg := range c.Targets {
					names = append(names, tg.OverrideParams.Model)
				}
			case "openrouter":
				c, err := ex.Config.AsOpenRouterRequest()
				if err != nil {
					t.Fatal(err)
				}
				names = c.Models
				if len(names) > 3 {
					t.Errorf("%d models, OpenRouter takes 3", len(names))
				}
			}
			var want []string
			for _, tg := range ex.Targets {
				want = append(want, tg.GatewayModel)
			}
			if !slices.Equal(names, want) {
				t.Errorf("config models %v, targets %v", names, want)
			}
		})
	}

	// The document's limit default is the handler's (generated_at aside, the answers are the same).
	strip := func(path string) string {
		var m map[string]any
		get(t, s, path, &m)
		delete(m, "generated_at")
		b, _ := json.Marshal(m)
		return string(b)
	}
	if a, b := strip("/api/v1/failover/export?primary=openai&format=portkey"), strip("/api/v1/failover/export?primary=openai&format=portkey&limit=5"); a != b {
		t.Errorf("limit default:\n%s\n%s", a, b)
	}
	// max_cost_per_1m bounds the chain as GET /failover does.
	var ex api.FailoverExport
	get(t, s, "/api/v1/failover/export?primary=openai&format=litellm&max_cost_per_1m=0.1", &ex)
	get(t, s, "/api/v1/failover?primary=openai&max_cost_per_1m=0.1", &f)
	for _, tg := range ex.Targets[1:] {
		if !slices.ContainsFunc(f.FailoverChain, func(e api.FailoverEntry) bool { return e.ProviderId == tg.ProviderId }) {
			t.Errorf("%s is a target but not in the capped chain", tg.ProviderId)
		}
	}
	for _, c := range []struct {
		path   string
		status int
		param  string
	}{
		{"/failover/export?primary=openai", 400, "format"},
		{"/failover/export?primary=openai&format=kong", 400, "format"},
		{"/failover/export?format=litellm", 400, "primary"},
		{"/failover/export?primary=openai&format=litellm&limit=11", 400, "limit"},
		{"/failover/export?primary=nope&format=litellm", 404, "primary"},
	} {
		r := s.Get("/api/v1" + c.path)
		if r.Status != c.status || !strings.Contains(r.Error(t), c.param) {
			t.Errorf("GET %s = %d %s, want %d naming %s", c.path, r.Status, r.Body, c.status, c.param)
		}
	}
}
