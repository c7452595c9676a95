package parse

import (
	"bytes"
	"time"
)

// Plain reachability, format "http" (statuspage-formats.md section 10): the fetcher has already rejected
// non-2xx answers, so any body of a successful fetch reads operational ("reachability only": there is no finer
// signal, and a status page's fetch alone never says outage). The one exception is a bot-protection challenge
// served with a 2xx: it proves nothing about the page, so it is unparseable (a failed check), as the doc's
// section 10 lists "a Cloudflare challenge ('Just a moment...' in the body)" among the unknowns.

func init() { register("http", safe("http", parseReachability)) }

func parseReachability(body []byte, scope Scope, now time.Time) (Reading, error) {
	if isChallenge(body) {
		return Reading{}, unparseable("http", "a bot-protection challenge page, not the status page")
	}
	return Reading{Status: Operational}, nil
}

// isChallenge recognises Cloudflare's interstitial ("Just a moment..." with the challenge-platform script) in the
// first 64 KiB of a body.
func isChallenge(body []byte) bool {
	head := body
	if len(head) > 64<<10 {
		head = head[:64<<10]
	}
	head = bytes.ToLower(head)
	// Cloudflare also injects challenge-platform scripts into ordinary pages, so the interstitial's title must be
	// there as well.
	return bytes.Contains(head, []byte("<title>just a moment...</title>")) &&
		(bytes.Contains(head, []byte("/cdn-cgi/challenge-platform/")) || bytes.Contains(head, []byte("cf-chl")))
}
