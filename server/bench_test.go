package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/store"
)

// BenchmarkHandler measures requests through the whole handler in process: routing, validation against the
// document, the handler, JSON encoding, the request log (discarded). /health answers all 52 providers (unknown,
// on an empty database); /pick validates three parameters and ranks every provider.
func BenchmarkHandler(b *testing.B) {
	s, err := store.Open(context.Background(), "sqlite://"+filepath.Join(b.TempDir(), "b.db"), store.Options{Migrate: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	h, err := server.NewHandler(context.Background(), server.Options{API: impl.New(impl.Deps{Store: s, Logger: log}), Store: s, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	first := httptest.NewRecorder()
	h.ServeHTTP(first, httptest.NewRequest(http.MethodGet, "/api/v1/pricing", nil))
	pricingTag := first.Header().Get("ETag")
	for _, c := range []struct{ name, path, encoding, ifNoneMatch string }{
		{"healthz", "/healthz", "", ""},
		{"health", "/api/v1/health", "", ""},
		{"pick-3-params", "/api/v1/pick?task=llm&needs=vision,json_mode&budget=5", "", ""},
		{"pick", "/api/v1/pick?task=llm", "", ""},
		{"rejected-400", "/api/v1/benchmarks?limit=500", "", ""},
		{"pricing-all", "/api/v1/pricing", "", ""},
		{"pricing-page", "/api/v1/pricing?provider=openai&limit=25", "", ""},
		{"pricing-gzip", "/api/v1/pricing", "gzip", ""},
		{"pricing-304", "/api/v1/pricing", "", pricingTag},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			if c.encoding != "" {
				req.Header.Set("Accept-Encoding", c.encoding)
			}
			if c.ifNoneMatch != "" {
				req.Header.Set("If-None-Match", c.ifNoneMatch)
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code >= http.StatusInternalServerError && w.Code != http.StatusNotImplemented {
						b.Fatalf("status %d", w.Code)
					}
				}
			})
		})
	}
}
