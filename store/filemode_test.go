package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/store"
)

// TestSQLiteFilePrivate: the database holds the webhook secrets, so a new SQLite file is created readable by the
// service's user only, and an existing one that others could read is made so (the finding: secrets in a
// world-readable SQLite file).
func TestSQLiteFilePrivate(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new.db")
	s, err := store.Open(context.Background(), "sqlite://"+fresh, store.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, p := range []string{fresh, fresh + "-wal", fresh + "-shm"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	old := filepath.Join(dir, "old.db")
	if err := os.WriteFile(old, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	s, err = store.Open(context.Background(), old, store.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if fi, _ := os.Stat(old); fi.Mode().Perm() != 0o600 {
		t.Errorf("an existing world-readable file kept mode %v", fi.Mode().Perm())
	}
}
