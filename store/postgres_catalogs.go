package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/gen/pgdb"
)

type pgCatalogTx struct{ pgTx }

func (t pgCatalogTx) insertBuild(ctx context.Context, b CatalogBuild) (int64, error) {
	return t.q.InsertCatalogBuild(ctx, t.tx, pgdb.InsertCatalogBuildParams{Digest: b.Digest, Base: b.Base, Files: b.Files, Events: int32(b.Events), CreatedAt: b.CreatedAt})
}

func (t pgCatalogTx) pruneBuilds(ctx context.Context) error { return t.q.PruneCatalogBuilds(ctx, t.tx) }

func (t pgCatalogTx) insertCatalogEvent(ctx context.Context, e CatalogEvent) (int64, error) {
	return t.q.InsertCatalogEvent(ctx, t.tx, pgdb.InsertCatalogEventParams{
		BuildID: e.BuildID, EventType: e.Type, ProviderID: e.ProviderID, ModelID: e.ModelID, Payload: string(e.Payload), CreatedAt: e.CreatedAt,
	})
}

func (t pgCatalogTx) deleteCatalogEventsBefore(ctx context.Context, before time.Time) error {
	_, err := t.q.DeleteCatalogEventsBefore(ctx, t.tx, before)
	return err
}

func (s *postgresStore) SaveCatalogBuild(ctx context.Context, b CatalogBuild, events []CatalogEvent) (int64, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("saving the catalog build: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	id, err := writeCatalogBuild(ctx, pgCatalogTx{pgTx{q: s.q, tx: tx}}, b, events)
	if err != nil {
		return 0, err
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("saving the catalog build: %w", err)
	}
	return id, nil
}

func (s *postgresStore) LatestCatalogBuild(ctx context.Context) (CatalogBuild, error) {
	r, err := s.q.LatestCatalogBuildHead(ctx, s.pool)
	if errors.Is(err, pgx.ErrNoRows) {
		return CatalogBuild{}, ErrNotFound
	}
	if err != nil {
		return CatalogBuild{}, fmt.Errorf("reading the latest catalog build: %w", err)
	}
	return CatalogBuild{ID: r.ID, Digest: r.Digest, Base: r.Base, Events: int(r.Events), CreatedAt: r.CreatedAt.UTC()}, nil
}

func (s *postgresStore) GetCatalogBuild(ctx context.Context, id int64) (CatalogBuild, error) {
	r, err := s.q.GetCatalogBuild(ctx, s.pool, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return CatalogBuild{}, ErrNotFound
	}
	if err != nil {
		return CatalogBuild{}, fmt.Errorf("reading catalog build %d: %w", id, err)
	}
	return CatalogBuild{ID: r.ID, Digest: r.Digest, Base: r.Base, Files: r.Files, Events: int(r.Events), CreatedAt: r.CreatedAt.UTC()}, nil
}

func (s *postgresStore) CatalogEventsSince(ctx context.Context, since time.Time, limit int) ([]CatalogEvent, error) {
	rows, err := s.q.CatalogEventsSince(ctx, s.pool, pgdb.CatalogEventsSinceParams{Since: normTime(since), MaxRows: int32(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading catalog events: %w", err)
	}
	return convertRows(rows, func(r pgdb.CatalogEvent) CatalogEvent { return catalogEventRow(r).event() }), nil
}
