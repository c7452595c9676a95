// Package web serves the pages for people: the status dashboard at /, a page per provider, status and uptime
// badges, and the API reference rendered by Swagger UI. Everything it needs (templates, CSS, Swagger UI's
// files) is embedded in the binary, so the pages work offline and load nothing from another origin. The data
// comes from the same in-memory health view the API answers from.
package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/health"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// DefaultRefresh is how often the dashboard polls /api/v1/health.
const DefaultRefresh = 15 * time.Second

// Bounds of the ?refresh= seconds a dashboard URL may ask for (the browser test asks for 1).
const (
	MinRefreshSeconds = 1
	MaxRefreshSeconds = 3600
)

// BadgeMaxAge is the Cache-Control max-age of badges: a minute, about a tenth of the poll interval, so READMEs
// that embed them do not hit the service on every view.
const BadgeMaxAge = 60

// Source gives the health snapshot to answer from; *health.View is one.
type Source interface {
	Current(ctx context.Context) (*health.Snapshot, error)
}

// Options configure New.
type Options struct {
	Health Source
	Logger *slog.Logger
	// Clock gives the time answers are computed for; time.Now when nil (tests with a fixed clock set it).
	Clock func() time.Time
}

// Handler serves the pages.
type Handler struct {
	o    Options
	tmpl *template.Template
	mux  *http.ServeMux
}

// New returns the pages' handler. It serves /, /providers/{id}, /badge/..., /docs and /assets/...; the caller
// routes only those paths to it.
func New(o Options) (*Handler, error) {
	if o.Health == nil {
		return nil, errors.New("web: Health is required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	t, err := template.New("").Funcs(template.FuncMap{
		"statusColor": StatusColor,
		"pct": func(p *float64) string {
			if p == nil {
				return "–"
			}
			return strconv.FormatFloat(*p, 'f', -1, 64) + " %"
		},
		"ms": func(p *float64) string {
			if p == nil {
				return "–"
			}
			return strconv.FormatFloat(*p, 'f', -1, 64)
		},
	}).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	assets, err := fs.Sub(assetFS, "assets")
	if err != nil {
		return nil, err
	}
	h := &Handler{o: o, tmpl: t, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /{$}", h.dashboard)
	h.mux.HandleFunc("GET /providers/{id}", h.provider)
	h.mux.HandleFunc("GET /badge/{file}", h.statusBadge)
	h.mux.HandleFunc("GET /badge/{id}/uptime.svg", h.uptimeBadge)
	h.mux.HandleFunc("GET /docs", h.docs)
	h.mux.Handle("GET /docs/", http.RedirectHandler("/docs", http.StatusMovedPermanently))
	h.mux.Handle("GET /assets/", http.StripPrefix("/assets", noListing(http.FileServerFS(assets))))
	h.mux.HandleFunc("/", h.notFound)
	return h, nil
}

// contentSecurityPolicy is the pages' policy: no inline script, nothing from another origin, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; " +
	"style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'"

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The pages load nothing from elsewhere; the policy makes that a rule the browser enforces. Scripts come only
	// from the service's own files (the dashboard's poller and Swagger UI's start-up are files under /assets), so
	// text injected into a page cannot run. Styles may be inline (Swagger UI sets them); images include Swagger
	// UI's data: icons.
	w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	h.mux.ServeHTTP(w, r)
}

// noListing answers 404 for directories, so /assets/ does not list the embedded files.
func noListing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) snapshot(ctx context.Context) (*health.Snapshot, time.Time, error) {
	s, err := h.o.Health.Current(ctx)
	return s, h.o.Clock(), err
}

func (h *Handler) dashboard(w http.ResponseWriter, r *http.Request) {
	refresh := DefaultRefresh
	if v := r.URL.Query().Get("refresh"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < MinRefreshSeconds || n > MaxRefreshSeconds {
			h.page(w, r, http.StatusBadRequest, "error", errorPage{Title: "Bad request",
				Message: "refresh must be a whole number of seconds from 1 to 3600"})
			return
		}
		refresh = time.Duration(n) * time.Second
	}
	s, now, err := h.snapshot(r.Context())
	if err != nil {
		h.fail(w, r, "loading the health view", err)
		return
	}
	d, err := BuildDashboard(s, now, refresh)
	if err != nil {
		h.fail(w, r, "building the dashboard", err)
		return
	}
	h.page(w, r, http.StatusOK, "dashboard", d)
}

func (h *Handler) provider(w http.ResponseWriter, r *http.Request) {
	s, now, err := h.snapshot(r.Context())
	if err != nil {
		h.fail(w, r, "loading the health view", err)
		return
	}
	p, err := BuildProviderPage(s, r.PathValue("id"), now)
	if errors.Is(err, errUnknown) {
		h.page(w, r, http.StatusNotFound, "error", errorPage{Title: "Unknown provider",
			Message: "No monitored provider has the id " + strconv.Quote(r.PathValue("id")) + "."})
		return
	}
	if err != nil {
		h.fail(w, r, "building the provider page", err)
		return
	}
	h.page(w, r, http.StatusOK, "provider", p)
}

func (h *Handler) statusBadge(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutSuffix(r.PathValue("file"), ".svg")
	if !ok {
		h.notFound(w, r)
		return
	}
	s, now, err := h.snapshot(r.Context())
	if err != nil {
		h.fail(w, r, "loading the health view", err)
		return
	}
	p, ok := s.Providers().Get(id)
	if !ok {
		writeSVG(w, http.StatusNotFound, Badge("provider", "not found", ColorGrey))
		return
	}
	writeSVG(w, http.StatusOK, StatusBadge(p.Name, s.Health(now).Providers[id].Status))
}

func (h *Handler) uptimeBadge(w http.ResponseWriter, r *http.Request) {
	period := r.URL.Query().Get("period")
	if period == "" {
		period = "30d"
	}
	s, now, err := h.snapshot(r.Context())
	if err != nil {
		h.fail(w, r, "loading the health view", err)
		return
	}
	u, err := s.UptimeHistory(r.PathValue("id"), period, now)
	var unknown *errs.UnknownProviderError
	var input *errs.InputError
	switch {
	case errors.As(err, &unknown):
		writeSVG(w, http.StatusNotFound, Badge("provider", "not found", ColorGrey))
	case errors.As(err, &input):
		writeSVG(w, http.StatusBadRequest, Badge("period", "use 7d, 30d or 90d", ColorGrey))
	case err != nil:
		h.fail(w, r, "computing the uptime", err)
	default:
		writeSVG(w, http.StatusOK, UptimeBadge(period, u.OverallUptimePct))
	}
}

func writeSVG(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "image/svg+xml; charset=utf-8")
	if status == http.StatusOK {
		w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(BadgeMaxAge))
	} else {
		w.Header().Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	w.Write(b)
}

func (h *Handler) docs(w http.ResponseWriter, r *http.Request) {
	h.page(w, r, http.StatusOK, "docs", nil)
}

type errorPage struct{ Title, Message string }

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.page(w, r, http.StatusNotFound, "error", errorPage{Title: "Not found", Message: "There is no page at " + r.URL.Path + "."})
}

// fail logs err and answers a 500 page that does not show it.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, doing string, err error) {
	h.o.Logger.ErrorContext(r.Context(), "web: "+doing, "path", r.URL.Path, "error", err)
	h.page(w, r, http.StatusInternalServerError, "error", errorPage{Title: "Internal error", Message: "The page could not be built; the error was logged."})
}

// page renders a template into memory first, so a template error becomes a 500 rather than half a page.
func (h *Handler) page(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var b bytes.Buffer
	if err := h.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		h.o.Logger.ErrorContext(r.Context(), "web: rendering "+name, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}
