package trust

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/store"
)

func TestHashText(t *testing.T) {
	// FIPS 180-2 test vectors.
	vectors := map[string]string{
		"":    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	}
	for in, want := range vectors {
		if got := HashText(in); got != want {
			t.Errorf("HashText(%q) = %s, want %s", in, got, want)
		}
	}
	// And the same as another tool's, on text with multi-byte characters.
	text := "Grüße, 世界 — attestation"
	cmd := exec.Command("sha256sum")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sha256sum: %v", err)
	}
	if want := strings.Fields(string(out))[0]; HashText(text) != want {
		t.Errorf("HashText = %s, sha256sum = %s", HashText(text), want)
	}
}

func ptr(s string) *string { return &s }

func TestCandidateAndMatches(t *testing.T) {
	h := HashText("hello")
	att := store.TrustRecord{Kind: store.TrustAttestation, PayloadHash: &h}
	bare := store.TrustRecord{Kind: store.TrustHandoff}
	cases := []struct {
		name         string
		output, hash *string
		rec          store.TrustRecord
		want         *bool
		err          bool
	}{
		{"nothing", nil, nil, att, nil, false},
		{"same output", ptr("hello"), nil, att, ptr2(true), false},
		{"other output", ptr("hello!"), nil, att, ptr2(false), false},
		{"hash upper case", nil, ptr(strings.ToUpper(h)), att, ptr2(true), false},
		{"other hash", nil, ptr(HashText("x")), att, ptr2(false), false},
		{"handoff without context", ptr("hello"), nil, bare, ptr2(false), false},
		{"both", ptr("hello"), ptr(h), att, nil, true},
		{"short hash", nil, ptr(h[:63]), att, nil, true},
		{"not hex", nil, ptr(strings.Repeat("g", 64)), att, nil, true},
	}
	for _, c := range cases {
		cand, err := Candidate(c.output, c.hash)
		if (err != nil) != c.err {
			t.Errorf("%s: err = %v", c.name, err)
			continue
		}
		if err != nil {
			if strings.Contains(err.Error(), "hello") {
				t.Errorf("%s: the error repeats the text: %v", c.name, err)
			}
			continue
		}
		got := Matches(c.rec, cand)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%s: Matches = %v, want %v", c.name, deref(got), deref(c.want))
		}
	}
}

func ptr2(b bool) *bool { return &b }

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
