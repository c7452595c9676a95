package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/switchboard/switchboard/config"
	"github.com/switchboard/switchboard/store"
)

const catalogsUsage = `usage: switchboard catalogs <held | approve <digest> | reject <digest>> [--database-url URL]

  held              print the catalog build waiting for an operator, with its counts (nothing when none waits)
  approve <digest>  install the held build: every replica loads it within a minute, and its change events go out
  reject <digest>   drop the held build: the catalogs in service stay, and the same build is not held again

A catalog refresh whose build changes more than 5% of the prices, removes more than 2% of the records or shrinks
a catalog by more than 10% holds it (/health: catalogs.refresh "held"). The digest is catalogs.held.digest of
/health. The database is DATABASE_URL's, as for serve.
`

var digestRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// catalogsCmd decides a held catalog build in the store, where every replica reads it.
func catalogsCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, catalogsUsage)
		return errors.New("catalogs: no subcommand given")
	}
	sub, rest := args[0], args[1:]
	var digest string
	switch sub {
	case "approve", "reject":
		if len(rest) == 0 || !digestRE.MatchString(rest[0]) {
			fmt.Fprint(stderr, catalogsUsage)
			return fmt.Errorf("catalogs %s: give the held build's digest (64 hex digits)", sub)
		}
		digest, rest = rest[0], rest[1:]
	case "held":
	case "-h", "--help", "help":
		fmt.Fprint(stdout, catalogsUsage)
		return nil
	default:
		fmt.Fprint(stderr, catalogsUsage)
		return fmt.Errorf("catalogs: unknown subcommand %q", sub)
	}
	st, err := config.Load("migrate", rest, getenv, stderr)
	if err != nil {
		return err
	}
	s, err := store.Open(ctx, st.DatabaseURL, store.Options{Migrate: true})
	if err != nil {
		return err
	}
	defer s.Close()
	if sub == "held" {
		b, err := s.HeldCatalogBuild(ctx)
		if errors.Is(err, store.ErrNotFound) {
			fmt.Fprintln(stdout, "no catalog build is held")
			return nil
		}
		if err != nil {
			return err
		}
		var counts map[string]any
		_ = json.Unmarshal(b.Hold, &counts)
		out, _ := json.MarshalIndent(map[string]any{"digest": b.Digest, "built_at": b.CreatedAt, "events": b.Events, "counts": counts}, "", "  ")
		fmt.Fprintln(stdout, string(out))
		return nil
	}
	b, err := s.DecideCatalogBuild(ctx, digest, sub == "approve", time.Now())
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("catalogs %s: no held build has digest %s (see catalogs.held of /health)", sub, digest)
	}
	if err != nil {
		return fmt.Errorf("catalogs %s: %w", sub, err)
	}
	if sub == "approve" {
		fmt.Fprintf(stdout, "catalog build %s approved: the replicas install it within a minute; %d change events recorded\n", digest, b.Events)
	} else {
		fmt.Fprintf(stdout, "catalog build %s rejected: the catalogs in service stay\n", digest)
	}
	return nil
}
