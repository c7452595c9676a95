package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/gen/litedb"
)

type liteCatalogTx struct{ liteTx }

func (t liteCatalogTx) insertBuild(ctx context.Context, b CatalogBuild, pending []byte) (int64, error) {
	return t.q.InsertCatalogBuild(ctx, t.tx, litedb.InsertCatalogBuildParams{Digest: b.Digest, Base: b.Base, Files: b.Files, Events: int64(b.Events), CreatedAt: b.CreatedAt,
		State: b.State, Hold: string(b.Hold), Pending: string(pending), Summary: nilOrString(b.Summary), Probation: string(b.Probation)})
}

func (t liteCatalogTx) supersedeHeld(ctx context.Context, now time.Time) error {
	return t.q.SupersedeHeldCatalogBuilds(ctx, t.tx, &now)
}

func (t liteCatalogTx) buildByDigest(ctx context.Context, digest string) (CatalogBuild, []byte, error) {
	r, err := t.q.CatalogBuildByDigest(ctx, t.tx, digest)
	if errors.Is(err, sql.ErrNoRows) {
		return CatalogBuild{}, nil, fmt.Errorf("no catalog build %s: %w", digest, ErrNotFound)
	}
	if err != nil {
		return CatalogBuild{}, nil, fmt.Errorf("reading catalog build %s: %w", digest, err)
	}
	return CatalogBuild{ID: r.ID, Digest: r.Digest, Base: r.Base, Events: int(r.Events), CreatedAt: r.CreatedAt.UTC(), State: r.State,
		Hold: json.RawMessage(r.Hold), Summary: rawOrNil(r.Summary)}, []byte(r.Pending), nil
}

func (t liteCatalogTx) setState(ctx context.Context, id int64, state string, now time.Time) error {
	return t.q.SetCatalogBuildState(ctx, t.tx, litedb.SetCatalogBuildStateParams{State: state, DecidedAt: &now, ID: id})
}

func (t liteCatalogTx) pruneBuilds(ctx context.Context) error {
	return t.q.PruneCatalogBuilds(ctx, t.tx)
}

func (t liteCatalogTx) insertCatalogEvent(ctx context.Context, e CatalogEvent) (int64, error) {
	return t.q.InsertCatalogEvent(ctx, t.tx, litedb.InsertCatalogEventParams{
		BuildID: e.BuildID, EventType: e.Type, ProviderID: e.ProviderID, ModelID: e.ModelID, Payload: string(e.Payload), CreatedAt: e.CreatedAt,
	})
}

func (t liteCatalogTx) deleteCatalogEventsBefore(ctx context.Context, before time.Time) error {
	_, err := t.q.DeleteCatalogEventsBefore(ctx, t.tx, before)
	return err
}

func (s *sqliteStore) TryCatalogLock(context.Context) (*Lease, error) { return heldForever(), nil }

func (s *sqliteStore) SaveCatalogBuild(ctx context.Context, b CatalogBuild, events []CatalogEvent) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("saving the catalog build: %w", err)
	}
	defer tx.Rollback() // a no-op after Commit
	id, err := writeCatalogBuild(ctx, liteCatalogTx{liteTx{q: s.q, tx: tx}}, b, events)
	if err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("saving the catalog build: %w", err)
	}
	return id, nil
}

func (s *sqliteStore) LatestCatalogBuild(ctx context.Context) (CatalogBuild, error) {
	r, err := s.q.LatestCatalogBuildHead(ctx, s.db)
	if errors.Is(err, sql.ErrNoRows) {
		return CatalogBuild{}, ErrNotFound
	}
	if err != nil {
		return CatalogBuild{}, fmt.Errorf("reading the latest catalog build: %w", err)
	}
	return CatalogBuild{ID: r.ID, Digest: r.Digest, Base: r.Base, Events: int(r.Events), CreatedAt: r.CreatedAt.UTC(), State: BuildInstalled, Probation: json.RawMessage(r.Probation)}, nil
}

func (s *sqliteStore) GetCatalogBuild(ctx context.Context, id int64) (CatalogBuild, error) {
	r, err := s.q.GetCatalogBuild(ctx, s.db, id)
	if errors.Is(err, sql.ErrNoRows) {
		return CatalogBuild{}, ErrNotFound
	}
	if err != nil {
		return CatalogBuild{}, fmt.Errorf("reading catalog build %d: %w", id, err)
	}
	return CatalogBuild{ID: r.ID, Digest: r.Digest, Base: r.Base, Files: r.Files, Events: int(r.Events), CreatedAt: r.CreatedAt.UTC(), State: r.State, Probation: json.RawMessage(r.Probation)}, nil
}

func (s *sqliteStore) CatalogEventsSince(ctx context.Context, since time.Time, limit int) ([]CatalogEvent, error) {
	rows, err := s.q.CatalogEventsSince(ctx, s.db, litedb.CatalogEventsSinceParams{Since: normTime(since), MaxRows: int64(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading catalog events: %w", err)
	}
	return convertRows(rows, func(r litedb.CatalogEvent) CatalogEvent { return catalogEventRow(r).event() }), nil
}

func (s *sqliteStore) HeldCatalogBuild(ctx context.Context) (CatalogBuild, error) {
	r, err := s.q.HeldCatalogBuildHead(ctx, s.db)
	if errors.Is(err, sql.ErrNoRows) {
		return CatalogBuild{}, ErrNotFound
	}
	if err != nil {
		return CatalogBuild{}, fmt.Errorf("reading the held catalog build: %w", err)
	}
	return CatalogBuild{ID: r.ID, Digest: r.Digest, Base: r.Base, Events: int(r.Events), CreatedAt: r.CreatedAt.UTC(), State: BuildHeld, Hold: json.RawMessage(r.Hold)}, nil
}

func (s *sqliteStore) CatalogBuildByDigest(ctx context.Context, digest string) (CatalogBuild, error) {
	r, err := s.q.CatalogBuildByDigest(ctx, s.db, digest)
	if errors.Is(err, sql.ErrNoRows) {
		return CatalogBuild{}, ErrNotFound
	}
	if err != nil {
		return CatalogBuild{}, fmt.Errorf("reading catalog build %s: %w", digest, err)
	}
	return CatalogBuild{ID: r.ID, Digest: r.Digest, Base: r.Base, Events: int(r.Events), CreatedAt: r.CreatedAt.UTC(), State: r.State,
		Hold: json.RawMessage(r.Hold), Summary: rawOrNil(r.Summary)}, nil
}

func (s *sqliteStore) DecideCatalogBuild(ctx context.Context, digest string, approve bool, now time.Time) (CatalogBuild, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return CatalogBuild{}, fmt.Errorf("deciding the catalog build: %w", err)
	}
	defer tx.Rollback() // a no-op after Commit
	b, err := decideCatalogBuild(ctx, liteCatalogTx{liteTx{q: s.q, tx: tx}}, digest, approve, now)
	if err != nil {
		return CatalogBuild{}, err
	}
	if err := tx.Commit(); err != nil {
		return CatalogBuild{}, fmt.Errorf("deciding the catalog build: %w", err)
	}
	return b, nil
}
