package e2e

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/refresh/refreshtest"
)

// delivery is one webhook POST the receiver got.
type delivery struct {
	event, signature string
	body             []byte
}

// receiver collects webhook deliveries on loopback.
type receiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []delivery
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		if req.Header.Get("X-Service-Event") == "webhook.verify" {
			// The handshake a subscription passes before it gets events: echo the challenge.
			var v struct {
				Payload struct {
					Challenge string `json:"challenge"`
				} `json:"payload"`
			}
			_ = json.Unmarshal(b, &v)
			_ = json.NewEncoder(w).Encode(map[string]string{"challenge": v.Payload.Challenge})
			return
		}
		r.mu.Lock()
		r.got = append(r.got, delivery{event: req.Header.Get("X-Service-Event"), signature: req.Header.Get("X-Service-Signature"), body: b})
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

func catalogsOf(base string) (api.CatalogsState, bool) {
	h, ok := healthOf(base)
	return h.Catalogs, ok
}

func inputPrice(t *testing.T, base, provider, model string) float64 {
	t.Helper()
	var p api.PricingResponse
	if st := getJSON(t, base+"/api/v1/pricing?provider="+provider, &p); st != 200 {
		t.Fatalf("pricing: %d", st)
	}
	for _, r := range p.Pricing {
		if r.Model == model && r.Pricing.InputPer1mTokens != nil {
			return *r.Pricing.InputPer1mTokens
		}
	}
	t.Fatalf("%s/%s is not priced", provider, model)
	return 0
}

// TestCatalogRefreshThroughTheBinary runs the served binary with the catalog refresh on, against a fake source
// host on loopback, on every engine: while the host is broken the old catalogs serve and /health says the
// refresh is failing; once it serves a raised price and a deprecation, one refresh later both are in
// /changelog/api and reach a subscribed webhook, signed with its secret; on PostgreSQL a second replica loads
// the build from the store instead of making its own. The engines run side by side, each with its own source
// host and receiver: most of the time goes on waiting for the binary's refresh interval.
func TestCatalogRefreshThroughTheBinary(t *testing.T) {
	t.Parallel()
	const secret = "refresh-test-secret-0123456789"
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			host := refreshtest.NewSourceHost(t, filepath.Join("..", "sources", "upstream"))
			host.Broken.Store(true)
			hook := newReceiver(t)
			dbURL := "sqlite://" + filepath.Join(t.TempDir(), "sb.db")
			if e.Name != "sqlite" {
				_, dbURL = e.Open(t)
			}
			serve := func() (string, *apitest.SyncBuffer) {
				addr := freeAddr(t)
				log := start(t, "serve", "--addr", addr, "--database-url", dbURL, "--poll=false", "--log-level", "warn",
					"--catalog-refresh", "10s", "--catalog-sources-url", host.URL, "--catalog-npm-registry", "off", "--webhook-allow-loopback", "--outbound-allow-loopback")
				base := "http://" + addr
				waitFor(t, "the service", func() bool { _, ok := healthOf(base); return ok }, log)
				return base, log
			}
			base, log := serve()

			// A broken source: the refresh fails, the embedded catalogs keep serving.
			waitFor(t, "a failed refresh", func() bool { c, ok := catalogsOf(base); return ok && c.Refresh == api.CatalogsStateRefreshFailing }, log)
			c, _ := catalogsOf(base)
			if c.Origin != api.CatalogsStateOriginEmbedded || c.LastError == nil || *c.LastError != refresh.ClassHTTPStatus {
				t.Errorf("catalogs while the source is broken: %+v", c)
			}
			if got := inputPrice(t, base, refreshtest.Provider, refreshtest.ChangedModel); got != refreshtest.OldInputPrice {
				t.Errorf("price while the source is broken = %v, want %v", got, refreshtest.OldInputPrice)
			}
			var replica string
			if e.Name != "sqlite" {
				replica, _ = serve() // the first holds the refresh lock
			}

			// A subscriber for the mistral catalog events.
			sub, _ := json.Marshal(map[string]any{"callback_url": hook.URL + "/" + e.Name, "secret": secret,
				"events": []string{"catalog.price_changed", "catalog.model_deprecated"}, "providers": []string{refreshtest.Provider}})
			res, err := http.Post(base+"/api/v1/webhooks", "application/json", bytes.NewReader(sub))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated {
				t.Fatalf("subscribing: %s", res.Status)
			}

			before := len(hook.deliveries())
			host.Broken.Store(false)
			waitFor(t, "a refresh", func() bool { c, ok := catalogsOf(base); return ok && c.Origin == api.CatalogsStateOriginRefresh }, log)
			if got := inputPrice(t, base, refreshtest.Provider, refreshtest.ChangedModel); got != refreshtest.NewInputPrice {
				t.Errorf("price after the refresh = %v, want %v", got, refreshtest.NewInputPrice)
			}

			// The change feed.
			var feed api.ApiChangelogResponse
			if st := getJSON(t, base+"/api/v1/changelog/api?provider="+refreshtest.Provider+"&days=1&limit=200", &feed); st != 200 {
				t.Fatalf("changelog: %d", st)
			}
			var priced, deprecated bool
			for _, r := range feed.Changelog {
				if r.CatalogEvent == nil {
					continue
				}
				d := r.CatalogEvent.Details
				switch {
				case r.CatalogEvent.Type == "catalog.price_changed" && d.ModelId == refreshtest.ChangedModel:
					priced = r.ChangeType == api.ApiChangelogChangeTypePricingChange && r.Impact == api.ApiChangelogImpactHigh &&
						*d.OldInputPer1mTokens == refreshtest.OldInputPrice && *d.NewInputPer1mTokens == refreshtest.NewInputPrice && *d.InputChangePct == 100
				case r.CatalogEvent.Type == "catalog.model_deprecated" && d.ModelId == refreshtest.DeprecatedModel:
					deprecated = r.ChangeType == api.ApiChangelogChangeTypeDeprecation && d.SunsetDate != nil && d.SunsetDate.String() == refreshtest.SunsetDay
				}
			}
			if !priced || !deprecated {
				t.Errorf("feed: price change %v, deprecation %v: %+v", priced, deprecated, feed.Changelog)
			}

			// The webhook, signed.
			waitFor(t, "two webhook deliveries", func() bool { return len(hook.deliveries())-before >= 2 }, log)
			seen := map[string]bool{}
			for _, d := range hook.deliveries()[before:] {
				mac := hmac.New(sha256.New, []byte(secret))
				mac.Write(d.body)
				if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(strings.ToLower(d.signature))) {
					t.Errorf("delivery %s: signature %q does not match the body", d.event, d.signature)
				}
				var ev struct {
					Event   string                  `json:"event"`
					Payload api.CatalogEventPayload `json:"payload"`
				}
				if err := json.Unmarshal(d.body, &ev); err != nil || ev.Event != d.event || ev.Payload.ProviderId != refreshtest.Provider {
					t.Errorf("delivery %s: %s (%v)", d.event, d.body, err)
				}
				seen[ev.Event+" "+ev.Payload.ModelId] = true
			}
			if !seen["catalog.price_changed "+refreshtest.ChangedModel] || !seen["catalog.model_deprecated "+refreshtest.DeprecatedModel] {
				t.Errorf("deliveries: %v", seen)
			}

			if replica != "" {
				want, _ := catalogsOf(base)
				waitFor(t, "the replica to load the build", func() bool {
					c, ok := catalogsOf(replica)
					return ok && c.Origin == api.CatalogsStateOriginStore && c.Digest == want.Digest
				}, log)
				if got := inputPrice(t, replica, refreshtest.Provider, refreshtest.ChangedModel); got != refreshtest.NewInputPrice {
					t.Errorf("replica price = %v, want %v", got, refreshtest.NewInputPrice)
				}
			}
		})
	}
}
