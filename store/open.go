package store

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// DefaultDatabaseURL is used when DATABASE_URL is empty: a SQLite file in the working folder.
const DefaultDatabaseURL = "sqlite://switchboard.db"

// Options tune Open.
type Options struct {
	// Migrate applies the embedded migrations before the store is returned.
	Migrate bool
	// LockCheck is how often a PostgreSQL lock holder checks the connection its lock lives on (Lease.Lost);
	// DefaultLockCheck when zero.
	LockCheck time.Duration
}

// DefaultLockCheck is how often a held lock's connection is checked: a leader whose lock went with its
// connection stops within about this long, well inside one poll interval, before another replica takes over.
const DefaultLockCheck = 5 * time.Second

// Open connects to the database named by rawURL: "postgres://..." or "postgresql://..." for PostgreSQL,
// "sqlite:///abs/path.db", "sqlite://relative.db" or a bare file path for SQLite, "" for DefaultDatabaseURL.
func Open(ctx context.Context, rawURL string, opts Options) (Store, error) {
	engine, dsn, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	var s Store
	switch engine {
	case "postgres":
		s, err = openPostgres(ctx, dsn, opts)
	default:
		s, err = openSQLite(ctx, dsn, opts)
	}
	if err != nil {
		return nil, err
	}
	return edge{s}, nil
}

// ParseURL tells the engine of a database URL and returns what that engine's driver needs: the URL itself for
// PostgreSQL, the file path for SQLite.
func ParseURL(rawURL string) (engine, target string, err error) {
	if rawURL == "" {
		rawURL = DefaultDatabaseURL
	}
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		if _, err := url.Parse(rawURL); err != nil {
			return "", "", fmt.Errorf("parsing DATABASE_URL: %w", err)
		}
		return "postgres", rawURL, nil
	case strings.HasPrefix(rawURL, "sqlite://"):
		path := strings.TrimPrefix(rawURL, "sqlite://")
		if path == "" {
			return "", "", fmt.Errorf("DATABASE_URL %q names no SQLite file", rawURL)
		}
		return "sqlite", path, nil
	case strings.Contains(rawURL, "://"):
		return "", "", fmt.Errorf("DATABASE_URL scheme not supported (want postgres:// or sqlite://): %q", redact(rawURL))
	default:
		return "sqlite", rawURL, nil
	}
}

// redact hides a password in a URL before it reaches an error message or a log line.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}
