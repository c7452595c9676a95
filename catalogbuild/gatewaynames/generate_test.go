package main

import (
	"bytes"
	"os"
	"testing"
)

// TestNamesFresh fails while gateway/names.json differs from what the committed snapshots give.
func TestNamesFresh(t *testing.T) {
	want, err := Generate("../../sources/upstream")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../gateway/names.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("gateway/names.json is stale: run `go generate ./gateway`")
	}
}
