package refresh_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/refresh/refreshtest"
	"github.com/switchboard/switchboard/seeds"
)

func price(t *testing.T, provider, model string) float64 {
	t.Helper()
	recs, err := seeds.PricingRecords()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.ProviderId == provider && r.Model == model && r.Pricing.InputPer1mTokens != nil {
			return *r.Pricing.InputPer1mTokens
		}
	}
	t.Fatalf("%s/%s is not priced", provider, model)
	return 0
}

// TestRefresh: a broken source leaves the catalogs in service and says why; a good one installs the rebuilt
// catalogs and records the price change and the deprecation as events, in the feed and the webhook outbox; a
// second replica on the same store loads the build instead of making its own.
//
// The refresh runs the whole catalog build (in a plain child process under make test: refreshtest.Build), so this
// runs on one engine: PostgreSQL when it is configured (the engine of replicas), else SQLite. The store suite covers both engines' queries, and
// TestCatalogRefreshThroughTheBinary (e2e) the whole refresh on both.
func TestRefresh(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the whole catalog build")
	}
	engines := dbtest.Engines(t)
	for _, e := range engines[len(engines)-1:] {
		t.Run(e.Name, func(t *testing.T) {
			t.Cleanup(func() { seeds.Install(nil) })
			seeds.Install(nil)
			st, _ := e.Open(t)
			host := refreshtest.NewSourceHost(t, filepath.Join("..", "sources", "upstream"))
			ctx := context.Background()
			now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
			r, err := refresh.New(refresh.Options{Interval: time.Hour, SourcesBaseURL: host.URL, Store: st, Now: func() time.Time { return now },
				Outbound: netguard.Options{AllowLoopback: true}, Build: refreshtest.Build()})
			if err != nil {
				t.Fatal(err)
			}
			before := price(t, refreshtest.Provider, refreshtest.ChangedModel)

			host.Broken.Store(true)
			if _, err := r.Once(ctx); err == nil {
				t.Fatal("a refresh from a broken source succeeded")
			}
			if s := r.State(); s.Mode != "failing" || s.LastError != refresh.ClassHTTPStatus || s.Origin != "embedded" || s.LastSuccess != nil {
				t.Errorf("state after a failed refresh = %+v", s)
			}
			if got := price(t, refreshtest.Provider, refreshtest.ChangedModel); got != before {
				t.Errorf("price after a failed refresh = %v, want the old %v", got, before)
			}

			host.Broken.Store(false)
			out, err := r.Once(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !out.Installed || out.Events == 0 {
				t.Fatalf("outcome = %+v", out)
			}
			if got := price(t, refreshtest.Provider, refreshtest.ChangedModel); got != refreshtest.NewInputPrice {
				t.Errorf("price after the refresh = %v, want %v", got, refreshtest.NewInputPrice)
			}
			if s := r.State(); s.Mode != "ok" || s.Origin != "refresh" || s.LastSuccess == nil {
				t.Errorf("state after a refresh = %+v", s)
			}
			evs, err := st.CatalogEventsSince(ctx, now.Add(-time.Hour), 1000)
			if err != nil {
				t.Fatal(err)
			}
			var priced, deprecated bool
			for _, ev := range evs {
				var p refresh.EventPayload
				if err := json.Unmarshal(ev.Payload, &p); err != nil {
					t.Fatal(err)
				}
				switch {
				case ev.Type == refresh.EventPriceChanged && ev.ModelID == refreshtest.ChangedModel:
					priced = p.OldInputPer1mTokens != nil && *p.OldInputPer1mTokens == before && *p.NewInputPer1mTokens == refreshtest.NewInputPrice && p.InputChangePct != nil && *p.InputChangePct == 100
				case ev.Type == refresh.EventModelDeprecated && ev.ModelID == refreshtest.DeprecatedModel:
					deprecated = p.SunsetDate != nil && p.SunsetDate.Format(time.DateOnly) == refreshtest.SunsetDay
				case ev.Type == refresh.EventPriceChanged && ev.ProviderID == refreshtest.Provider:
					t.Errorf("a price change nobody made: %s", ev.Payload)
				}
			}
			if !priced || !deprecated {
				t.Errorf("events: price change %v, deprecation %v; %d events", priced, deprecated, len(evs))
			}
			outbox, err := st.OutboxAfter(ctx, 0, 5000)
			if err != nil || len(outbox) != len(evs) {
				t.Errorf("outbox holds %d events, the feed %d (%v)", len(outbox), len(evs), err)
			}

			// Another replica (a fresh process: back on the embedded set) loads the stored build.
			seeds.Install(nil)
			replica, err := refresh.New(refresh.Options{Store: st})
			if err != nil {
				t.Fatal(err)
			}
			replica.Run(ctx) // loads the stored build first; with refresh off it returns after that
			if s := replica.State(); s.Origin != "store" || s.Digest != out.Digest {
				t.Errorf("replica state = %+v, want the stored build %s", s, out.Digest)
			}
			if got := price(t, refreshtest.Provider, refreshtest.ChangedModel); got != refreshtest.NewInputPrice {
				t.Errorf("replica price = %v, want %v", got, refreshtest.NewInputPrice)
			}
		})
	}
}

// TestRefreshHealthShowsOnlyAnErrorClass reproduces the finding: a source that redirects to the cloud metadata
// path is not followed, a source on loopback is not reached without the setting, and what /health shows of
// any failure is a class, never the internal URL or the decoder's words (the logs keep those).
func TestRefreshHealthShowsOnlyAnErrorClass(t *testing.T) {
	t.Parallel()
	toMetadata := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://169.254.169.254/latest/meta-data/iam/security-credentials/", http.StatusFound)
	}
	loopback := netguard.Options{AllowLoopback: true}
	cases := []struct {
		name  string
		serve http.HandlerFunc
		guard netguard.Options
		class string
	}{
		{"redirect to metadata", toMetadata, loopback, netguard.ClassRedirectRefused},
		{"redirect to metadata, host listed", toMetadata,
			netguard.Options{AllowLoopback: true, RedirectHosts: []string{"169.254.169.254"}}, netguard.ClassRefusedAddress},
		{"redirect to plain http", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://mirror.example/x.json", http.StatusFound)
		}, netguard.Options{AllowLoopback: true, RedirectHosts: []string{"mirror.example"}}, netguard.ClassRedirectRefused},
		{"error status", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "internal detail: db at 10.0.0.7", http.StatusInternalServerError)
		}, loopback, refresh.ClassHTTPStatus},
		{"malformed", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"a": [1, 2`) }, loopback, refresh.ClassDecode},
		{"loopback without the setting", func(w http.ResponseWriter, r *http.Request) {
			t.Error("a source on loopback was reached without the setting")
		}, netguard.Options{}, netguard.ClassRefusedAddress},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := httptest.NewServer(tc.serve)
			defer src.Close()
			r, err := refresh.New(refresh.Options{Interval: time.Hour, SourcesBaseURL: src.URL, Outbound: tc.guard,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Once(context.Background()); err == nil {
				t.Fatal("the refresh succeeded")
			}
			s := r.State()
			if s.Mode != "failing" || s.LastError != tc.class {
				t.Errorf("state %q / last_error %q, want failing / %q", s.Mode, s.LastError, tc.class)
			}
			for _, leak := range []string{"127.0.0.1", "169.254", "://", "/", " ", "10.0.0.7", "unexpected"} {
				if strings.Contains(s.LastError, leak) {
					t.Errorf("last_error %q shows %q", s.LastError, leak)
				}
			}
		})
	}
}
