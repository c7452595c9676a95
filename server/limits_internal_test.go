package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/store"
)

func TestHandlerDeadlineIs503(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api/v1/pick", nil)
	rec := httptest.NewRecorder()
	handlerError(log)(rec, req, errors.Join(errors.New("query"), context.DeadlineExceeded))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("a handler past its deadline: %d Retry-After=%q, want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}

func TestUnavailableDatabaseIs503(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	req := httptest.NewRequest(http.MethodPost, "/api/v1/attest", nil)
	rec := httptest.NewRecorder()
	// The store's edge turns a lost connection into store.ErrUnavailable (store.TestAtEdge); the server answers it.
	handlerError(log)(rec, req, fmt.Errorf("storing: %w", store.ErrUnavailable))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "database unavailable") {
		t.Errorf("a lost database connection: %d Retry-After=%q %s, want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	rec = httptest.NewRecorder()
	handlerError(log)(rec, req, errors.New("a bug"))
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("any other error: %d, want 500", rec.Code)
	}
}
