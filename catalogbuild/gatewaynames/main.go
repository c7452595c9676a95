// Command gatewaynames writes gateway/names.json, the gateway model names the failover export may use, from the
// upstream snapshots under sources/upstream: LiteLLM's model map (read with the catalogs' own provider mapping,
// catalogbuild.LiteLLMRoutes) and the OpenRouter models of models.dev. Run it through `go generate ./gateway`
// after `make catalogs-fetch` refreshes the snapshots; a test fails while names.json is stale.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	src := flag.String("src", "sources/upstream", "directory of the upstream snapshots")
	out := flag.String("out", "gateway/names.json", "file to write")
	flag.Parse()
	b, err := Generate(*src)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatewaynames:", err)
		os.Exit(1)
	}
}
