package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/metrics"
	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// TestCatalogsApproveAndReject: `switchboard catalogs approve|reject <digest>` decides the held build in the
// store, on each engine: approve makes it the build every replica loads, reject keeps the one in service; an
// unknown or malformed digest is refused.
func TestCatalogsApproveAndReject(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			st, url := e.Open(t)
			ctx := context.Background()
			at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
			digest := func(c string) string { return strings.Repeat(c, 64) }
			hold := func(d string) {
				t.Helper()
				ev := store.CatalogEvent{Type: "catalog.model_removed", ProviderID: "openai", ModelID: "gpt-4o", Payload: json.RawMessage(`{}`)}
				if _, err := st.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: d, Base: "b", Files: []byte{1}, CreatedAt: at, State: store.BuildHeld, Hold: json.RawMessage(`{"records_removed":1894}`)},
					[]store.CatalogEvent{ev}); err != nil {
					t.Fatal(err)
				}
			}
			cli := func(args ...string) (string, error) {
				var out bytes.Buffer
				err := run(ctx, append(append([]string{"catalogs"}, args...), "--database-url", url), func(string) string { return "" }, &out, io.Discard)
				return out.String(), err
			}
			if out, err := cli("held"); err != nil || !strings.Contains(out, "no catalog build is held") {
				t.Fatalf("held with none: %q, %v", out, err)
			}
			hold(digest("a"))
			if out, err := cli("held"); err != nil || !strings.Contains(out, digest("a")) || !strings.Contains(out, "1894") {
				t.Fatalf("held: %q, %v", out, err)
			}
			if _, err := cli("approve", "nothex"); err == nil {
				t.Error("approve took a malformed digest")
			}
			if _, err := cli("approve", digest("c")); err == nil {
				t.Error("approve took a digest no build is held under")
			}
			if _, err := cli("reject", digest("a")); err != nil {
				t.Fatal(err)
			}
			if b, err := st.CatalogBuildByDigest(ctx, digest("a")); err != nil || b.State != store.BuildRejected {
				t.Fatalf("after reject: %+v, %v", b, err)
			}
			if _, err := st.LatestCatalogBuild(ctx); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("a rejected build is the latest: %v", err)
			}
			hold(digest("b"))
			if out, err := cli("approve", digest("b")); err != nil || !strings.Contains(out, "approved") {
				t.Fatalf("approve: %q, %v", out, err)
			}
			if head, err := st.LatestCatalogBuild(ctx); err != nil || head.Digest != digest("b") {
				t.Fatalf("latest after approve = %+v, %v", head, err)
			}
			if evs, _ := st.CatalogEventsSince(ctx, time.Time{}, 10); len(evs) != 1 || evs[0].Type != "catalog.model_removed" {
				t.Errorf("feed after approve: %+v", evs)
			}
		})
	}
}

// TestHealthSaysHeld: with a build held in the store, /health's catalogs object says `held` with the counts (the
// answer validates against the document), and the metric says so; the catalogs in service are the old ones.
func TestHealthSaysHeld(t *testing.T) {
	ctx := context.Background()
	t.Cleanup(func() { seeds.Install(nil) })
	seeds.Install(nil)
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var r *refresh.Refresher
	srv := apitest.Start(t, apitest.Options{Deps: func(d *impl.Deps) {
		d.Catalogs = func() api.CatalogsState { return catalogsState(r.State()) }
	}})
	counts := refresh.Hold{PricesTotal: 2004, RecordsRemoved: 1894, RecordsTotal: 26505, Shrunk: []refresh.Shrink{{Catalog: "pricing", Before: 2004, After: 110}}}
	hold, _ := json.Marshal(counts)
	held := strings.Repeat("e", 64)
	if _, err := srv.Store.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: held, Base: emb.Digest(), Files: []byte{1}, CreatedAt: time.Now(), State: store.BuildHeld, Hold: hold}, nil); err != nil {
		t.Fatal(err)
	}
	if r, err = refresh.New(refresh.Options{Store: srv.Store}); err != nil {
		t.Fatal(err)
	}
	r.Run(ctx) // refresh off: follows the store once and returns
	res := srv.Get("/api/v1/health")
	if res.Status != 200 {
		t.Fatalf("/health = %d", res.Status)
	}
	var h struct {
		Catalogs api.CatalogsState `json:"catalogs"`
	}
	res.Decode(t, &h)
	c := h.Catalogs
	if c.Refresh != "held" || c.Held == nil || c.Held.Digest != held || c.Held.RecordsRemoved != 1894 || c.Held.RecordsTotal != 26505 ||
		len(c.Held.ShrunkCatalogs) != 1 || c.Held.ShrunkCatalogs[0].After != 110 || c.Digest != emb.Digest() {
		t.Errorf("/health catalogs = %+v", c)
	}
	mx := metrics.New(metrics.Options{})
	mx.RegisterCatalogRefresh(func() metrics.CatalogRefresh {
		st := r.State()
		return metrics.CatalogRefresh{Held: st.Held != nil, HeldBuilds: st.HeldBuilds}
	})
	rec := httptest.NewRecorder()
	mx.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), "switchboard_catalog_build_held 1") {
		t.Errorf("metrics lack the held gauge:\n%s", rec.Body.String())
	}
}
