package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard/switchboard/gen/api"
)

// Defaults of the status command.
const (
	DefaultStatusServer   = "http://127.0.0.1:8080"
	DefaultStatusInterval = 15 * time.Second
	statusHTTPTimeout     = 10 * time.Second
	// statusChangelogEntries is how many of the latest changelog entries the provider detail shows.
	statusChangelogEntries = 5
)

const statusUsage = `usage: switchboard status [provider] [flags]

Prints the live status of every provider (worst first), or the detail of one provider, from a running server.

flags:
`

// exitError ends the process with code after the command has already said why.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// statusCmd is one run of the status command; tests build it directly to control the clock and the colours.
type statusCmd struct {
	client   *api.ClientWithResponses
	out      io.Writer
	errOut   io.Writer
	color    bool
	terminal bool
	now      func() time.Time
}

// status runs `switchboard status`.
func status(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, statusUsage); fs.PrintDefaults() }
	server := fs.String("server", cmp.Or(getenv("SWITCHBOARD_SERVER"), DefaultStatusServer),
		"base address of the Switchboard server (SWITCHBOARD_SERVER)")
	watch := fs.Bool("watch", false, "refresh until interrupted (Ctrl-C)")
	interval := fs.Duration("interval", DefaultStatusInterval, "time between refreshes with --watch")
	// Flags may come before or after the provider: the flag package stops at the first argument, so parse again.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) > 1 {
		fs.Usage()
		return fmt.Errorf("status: one provider at most, got %q", positional)
	}
	if *interval < time.Second {
		return fmt.Errorf("status: --interval %s: must be at least 1s", *interval)
	}
	terminal := isTerminal(stdout)
	c, err := newStatusCmd(*server, stdout, stderr, terminal && getenv("NO_COLOR") == "")
	if err != nil {
		return err
	}
	c.terminal = terminal
	show := c.table
	if len(positional) == 1 {
		id := positional[0]
		show = func(ctx context.Context) error { return c.detail(ctx, id) }
	}
	if !*watch {
		return show(ctx)
	}
	return c.watch(ctx, *interval, show)
}

func newStatusCmd(server string, stdout, stderr io.Writer, color bool) (*statusCmd, error) {
	server = strings.TrimRight(server, "/")
	if !strings.HasPrefix(server, "http://") && !strings.HasPrefix(server, "https://") {
		return nil, fmt.Errorf("status: --server %q: want an http:// or https:// address", server)
	}
	client, err := api.NewClientWithResponses(server+"/api/v1",
		api.WithHTTPClient(&http.Client{Timeout: statusHTTPTimeout}))
	if err != nil {
		return nil, fmt.Errorf("status: building the API client for %s: %w", server, err)
	}
	return &statusCmd{client: client, out: stdout, errOut: stderr, color: color, now: time.Now}, nil
}

// isTerminal reports whether w is a character device (a terminal), without golang.org/x/term.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// watch shows every interval until ctx ends (Ctrl-C). A failed refresh is reported and the next one tried: a
// server restarting should not end the watch.
func (c *statusCmd) watch(ctx context.Context, interval time.Duration, show func(context.Context) error) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if c.terminal {
			fmt.Fprint(c.out, "\x1b[H\x1b[2J") // home and clear: each refresh replaces the last
		}
		if err := show(ctx); err != nil {
			var ee *exitError
			if errors.As(err, &ee) {
				return err // an unknown provider stays unknown
			}
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintln(c.errOut, "switchboard:", err)
		}
		fmt.Fprintf(c.out, "\nrefreshing every %s; Ctrl-C to stop\n", interval)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if !c.terminal {
			fmt.Fprintln(c.out)
		}
	}
}

// statusRank orders the statuses worst first.
func statusRank(s api.ProviderStatus) int {
	switch s {
	case api.ProviderStatusOutage:
		return 0
	case api.ProviderStatusDegraded:
		return 1
	case api.ProviderStatusUnknown:
		return 2
	case api.ProviderStatusOperational:
		return 3
	}
	return 2
}

// ANSI colours per status.
func (c *statusCmd) paint(s api.ProviderStatus, text string) string {
	if !c.color {
		return text
	}
	code := "2" // dim: unknown
	switch s {
	case api.ProviderStatusOutage:
		code = "1;31"
	case api.ProviderStatusDegraded:
		code = "33"
	case api.ProviderStatusOperational:
		code = "32"
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// table prints every provider, worst first, then the summary line.
func (c *statusCmd) table(ctx context.Context) error {
	resp, err := c.client.GetHealthWithResponse(ctx)
	if err != nil {
		return fmt.Errorf("fetching /api/v1/health: %w", err)
	}
	if resp.JSON200 == nil {
		return serverError("/api/v1/health", resp.HTTPResponse, resp.Body)
	}
	h := resp.JSON200
	ids := make([]string, 0, len(h.Providers))
	for id := range h.Providers {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		return cmp.Or(cmp.Compare(statusRank(h.Providers[a].Status), statusRank(h.Providers[b].Status)), cmp.Compare(a, b))
	})
	// The status column is padded before it is coloured: escape codes would otherwise count as width.
	statusWidth := len("STATUS")
	for _, id := range ids {
		statusWidth = max(statusWidth, len(h.Providers[id].Status))
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "PROVIDER\t%-*s\tLAST CHECK\tRESPONSE\n", statusWidth, "STATUS")
	now := c.now()
	for _, id := range ids {
		p := h.Providers[id]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", id, c.paint(p.Status, fmt.Sprintf("%-*s", statusWidth, p.Status)),
			ago(p.LastChecked, now), millis(p.ResponseTimeMs))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	s := h.Summary
	fmt.Fprintf(c.out, "\n%d providers: %s, %s, %s, %s (as of %s)\n", len(ids),
		c.paint(api.ProviderStatusOutage, fmt.Sprintf("%d outage", s.Outage)),
		c.paint(api.ProviderStatusDegraded, fmt.Sprintf("%d degraded", s.Degraded)),
		c.paint(api.ProviderStatusUnknown, fmt.Sprintf("%d unknown", s.Unknown)),
		c.paint(api.ProviderStatusOperational, fmt.Sprintf("%d operational", s.Operational)),
		h.Timestamp.UTC().Format(time.RFC3339))
	return nil
}

// detail prints one provider: its live status, 24 h latency, open incidents and latest changelog entries. An
// unknown provider prints the server's 404 error and exits 1.
func (c *statusCmd) detail(ctx context.Context, id string) error {
	window := api.GetLatencyParamsWindowN24h
	lat, err := c.client.GetLatencyWithResponse(ctx, &api.GetLatencyParams{Provider: id, Window: &window})
	if err != nil {
		return fmt.Errorf("fetching the latency of %s: %w", id, err)
	}
	if lat.JSON404 != nil || lat.JSON400 != nil {
		msg := cmp.Or(lat.JSON404, lat.JSON400).Error
		fmt.Fprintln(c.errOut, "switchboard:", msg)
		return &exitError{code: 1}
	}
	if lat.JSON200 == nil {
		return serverError("/api/v1/latency", lat.HTTPResponse, lat.Body)
	}
	hr, err := c.client.GetHealthWithResponse(ctx)
	if err != nil {
		return fmt.Errorf("fetching /api/v1/health: %w", err)
	}
	if hr.JSON200 == nil {
		return serverError("/api/v1/health", hr.HTTPResponse, hr.Body)
	}
	inc, err := c.client.GetIncidentsWithResponse(ctx, &api.GetIncidentsParams{Provider: &id})
	if err != nil {
		return fmt.Errorf("fetching the incidents of %s: %w", id, err)
	}
	if inc.JSON200 == nil {
		return serverError("/api/v1/incidents", inc.HTTPResponse, inc.Body)
	}
	cl, err := c.client.GetChangelogWithResponse(ctx, &api.GetChangelogParams{Provider: &id})
	if err != nil {
		return fmt.Errorf("fetching the changelog of %s: %w", id, err)
	}
	if cl.JSON200 == nil {
		return serverError("/api/v1/changelog", cl.HTTPResponse, cl.Body)
	}

	now := c.now()
	p, ok := hr.JSON200.Providers[id]
	if !ok {
		p.Status = api.ProviderStatusUnknown
	}
	l := lat.JSON200
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "provider\t%s\n", id)
	fmt.Fprintf(tw, "status\t%s\n", c.paint(p.Status, string(p.Status)))
	lastCheck := ago(p.LastChecked, now)
	if p.LastChecked != nil {
		lastCheck += " (" + p.LastChecked.UTC().Format(time.RFC3339) + ")"
	}
	fmt.Fprintf(tw, "last check\t%s\n", lastCheck)
	fmt.Fprintf(tw, "response time\t%s\n", millis(p.ResponseTimeMs))
	fmt.Fprintf(tw, "latency (24h)\tp50 %s, p95 %s, p99 %s, avg %s over %d checks, trend %s\n",
		millis(l.P50Ms), millis(l.P95Ms), millis(l.P99Ms), millis(l.AvgMs), l.TotalChecks, l.Trend)
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the detail: %w", err)
	}

	var open []api.Incident
	for _, i := range inc.JSON200.Incidents {
		if i.Ongoing {
			open = append(open, i)
		}
	}
	fmt.Fprintf(c.out, "\nopen incidents: %d\n", len(open))
	for _, i := range open {
		fmt.Fprintf(c.out, "  %s since %s (%s, %.0f min)\n", c.paint(severityStatus(i.Severity), string(i.Severity)),
			i.StartedAt.UTC().Format(time.RFC3339), ago(&i.StartedAt, now), i.DurationMinutes)
	}

	entries := slices.Clone(cl.JSON200.Entries)
	slices.SortFunc(entries, func(a, b api.ChangelogEntry) int { return b.Timestamp.Compare(a.Timestamp) })
	if len(entries) > statusChangelogEntries {
		entries = entries[:statusChangelogEntries]
	}
	fmt.Fprintf(c.out, "\nlatest changes: %d\n", len(entries))
	for _, e := range entries {
		fmt.Fprintf(c.out, "  %s  %s -> %s  %s\n", e.Timestamp.UTC().Format(time.RFC3339),
			e.Details.From, c.paint(api.ProviderStatus(e.Details.To), string(e.Details.To)), e.Description)
	}
	return nil
}

// severityStatus colours an incident like the status it stands for.
func severityStatus(s api.IncidentSeverity) api.ProviderStatus {
	if string(s) == string(api.ProviderStatusOutage) {
		return api.ProviderStatusOutage
	}
	return api.ProviderStatusDegraded
}

// serverError words an answer the command did not expect, with the server's own error message when it sent one.
func serverError(path string, resp *http.Response, body []byte) error {
	code := 0
	if resp != nil {
		code = resp.StatusCode
	}
	var e api.Error
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return fmt.Errorf("%s answered %d: %s", path, code, e.Error)
	}
	return fmt.Errorf("%s answered %d", path, code)
}

// ago says how long ago t was, coarsely: "45s ago", "3m ago", "2h ago", "4d ago"; "never" when t is nil.
func ago(t *time.Time, now time.Time) string {
	if t == nil {
		return "never"
	}
	d := max(now.Sub(*t), 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// millis formats a time in milliseconds, "-" when there is none.
func millis(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f ms", *v)
}
