package parse

import "testing"

func TestReachability(t *testing.T) {
	runCases(t, "http", []pcase{
		{name: "an HTML status page", file: "status_page.html", want: Operational},
		{name: "a JSON document", file: "config.json", want: Operational},
		{name: "an empty body", body: "", want: Operational},
		{name: "binary", body: "\x00\xff\xfe", want: Operational},
		{name: "a page behind Cloudflare with its bot script", file: "cloudflare_proxied.html", want: Operational},
		{name: "a Cloudflare challenge served with 200", file: "challenge.html", err: true},
	})
}

func FuzzReachability(f *testing.F) { fuzzParser(f, "http", parseReachability) }
