// Command loadgen drives HTTP GETs at a fixed number of connections for a while and prints requests per second
// and latency percentiles per URL. `make bench` uses it against a running server.
//
//	loadgen -c 64 -d 10s http://127.0.0.1:8080/api/v1/health http://127.0.0.1:8080/api/v1/latency?provider=openai
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

func main() {
	conns := flag.Int("c", 64, "concurrent connections per URL")
	dur := flag.Duration("d", 10*time.Second, "duration per URL")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: loadgen [-c 64] [-d 10s] URL...")
		os.Exit(2)
	}
	fmt.Printf("%-60s %10s %9s %9s %9s %7s\n", "url", "req/s", "p50 ms", "p99 ms", "max ms", "errors")
	failed := false
	for _, u := range flag.Args() {
		r := run(u, *conns, *dur)
		fmt.Printf("%-60s %10.0f %9.2f %9.2f %9.2f %7d\n", trim(u, 60), r.rps, r.p50, r.p99, r.max, r.errors)
		failed = failed || r.errors > 0
	}
	if failed {
		os.Exit(1)
	}
}

type result struct {
	rps, p50, p99, max float64
	errors             int
}

func run(url string, conns int, dur time.Duration) result {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var mu sync.Mutex
	var lat []float64
	errs := 0
	var wg sync.WaitGroup
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]float64, 0, 4096)
			bad := 0
			for ctx.Err() == nil {
				t0 := time.Now()
				res, err := client.Get(url)
				if err != nil {
					bad++
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					bad++
					continue
				}
				local = append(local, float64(time.Since(t0).Microseconds())/1000)
			}
			mu.Lock()
			lat = append(lat, local...)
			errs += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	return result{rps: float64(len(lat)) / elapsed, p50: pct(0.50), p99: pct(0.99), max: pct(1), errors: errs}
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n+3:]
}
