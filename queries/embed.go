// Package queries holds the sqlc input. Its schema directories double as the goose migrations, embedded here so
// that the binary applies exactly the tables sqlc generated code for.
package queries

import "embed"

// PostgresMigrations are the PostgreSQL migrations, in goose's annotated SQL format.
//
//go:embed postgres/schema/*.sql
var PostgresMigrations embed.FS

// SQLiteMigrations are the SQLite migrations, in goose's annotated SQL format.
//
//go:embed sqlite/schema/*.sql
var SQLiteMigrations embed.FS
