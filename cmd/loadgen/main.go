// Command loadgen drives HTTP GETs at a server and prints requests per second and latency percentiles per URL.
// `make bench` and `make soak` use it against a running server.
//
//	loadgen -c 64 -d 10s URL...                 each URL alone, closed loop at 64 connections
//	loadgen -mix -c 64 -d 20s 8=URL 1=URL ...   all URLs at once, each request picking a URL by weight
//	loadgen -rate 1000 -d 10m -every 30s -metrics http://host/metrics 8=URL 1=URL ...
//	                                            open loop at a steady 1,000 requests/s (weighted mix), printing
//	                                            the achieved rate, errors, p99 and the server's goroutines,
//	                                            resident memory and open files every 30 s
//	loadgen -bare -c 64 -d 3s URL gzip:URL 304:URL
//	                                            side by side with a bare net/http server writing the same bytes
//	                                            (bare.go, in a process of its own), interleaved rounds, prints the
//	                                            ratio
//
// Any answer other than 200, and any transport error, counts as an error; the exit status is 1 if there was one.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	conns := flag.Int("c", 64, "concurrent connections (per URL alone; in all for -mix)")
	dur := flag.Duration("d", 10*time.Second, "duration (per URL alone; in all for -mix and -rate)")
	mix := flag.Bool("mix", false, "request all URLs at once, picking each request's URL by weight")
	rate := flag.Int("rate", 0, "open loop: send this many requests per second in all (a weighted mix)")
	every := flag.Duration("every", 30*time.Second, "with -rate: report interval")
	metrics := flag.String("metrics", "", "with -rate: the server's Prometheus /metrics, sampled every interval")
	bare := flag.Bool("bare", false, "side by side: each URL on the service, then on a bare net/http server writing the same bytes; prints the ratio")
	rounds := flag.Int("rounds", 3, "with -bare: interleaved rounds per URL")
	inProcess := flag.Bool("bare-inproc", false, "with -bare: run the bare server inside the load generator's process, not in a process of its own")
	bareServe := flag.String("bare-serve", "", "internal: serve the recorded answers in this file (the -bare server's own process)")
	flag.Parse()
	if *bareServe != "" {
		if err := serveBare(*bareServe); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if *bare {
		if sideBySide(flag.Args(), *conns, *dur, *rounds, *inProcess) {
			os.Exit(1)
		}
		return
	}
	targets, err := parseTargets(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		fmt.Fprintln(os.Stderr, "usage: loadgen [-c 64] [-d 10s] [-mix | -rate N] [weight=]URL...")
		os.Exit(2)
	}
	var failed bool
	switch {
	case *rate > 0:
		failed = soak(targets, *rate, *dur, *every, *metrics)
	case *mix:
		failed = report(runMix(targets, *conns, *dur))
	default:
		var stats []*urlStats
		for _, t := range targets {
			stats = append(stats, runMix([]target{t}, *conns, *dur)...)
		}
		failed = report(stats)
	}
	if failed {
		os.Exit(1)
	}
}

type target struct {
	url    string
	weight int
}

func parseTargets(args []string) ([]target, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no URL")
	}
	var out []target
	for _, a := range args {
		t := target{url: a, weight: 1}
		if w, u, ok := strings.Cut(a, "="); ok && !strings.Contains(w, "/") {
			n, err := strconv.Atoi(w)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("weight of %q: want a positive number", a)
			}
			t = target{url: u, weight: n}
		}
		out = append(out, t)
	}
	return out, nil
}

// urlStats are the latencies (ms) and errors of one URL.
type urlStats struct {
	url     string
	mu      sync.Mutex
	lat     []float64
	errors  int
	elapsed float64
}

func (s *urlStats) add(ms float64, ok bool) {
	s.mu.Lock()
	if ok {
		s.lat = append(s.lat, ms)
	} else {
		s.errors++
	}
	s.mu.Unlock()
}

func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

func newClient(conns int) (*http.Client, *http.Transport) {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}, tr
}

// get requests url and reports the latency in ms and whether the answer was a 200.
func get(client *http.Client, url string) (float64, bool) {
	t0 := time.Now()
	res, err := client.Get(url)
	if err != nil {
		return 0, false
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return float64(time.Since(t0).Microseconds()) / 1000, err == nil && res.StatusCode == http.StatusOK
}

// picker chooses a target by weight.
func picker(targets []target) func(*rand.Rand) int {
	var cum []int
	total := 0
	for _, t := range targets {
		total += t.weight
		cum = append(cum, total)
	}
	return func(r *rand.Rand) int {
		n := r.IntN(total)
		i, _ := slices.BinarySearch(cum, n+1)
		return i
	}
}

// runMix keeps conns requests in flight for dur over the targets (weighted) and returns the stats per URL.
func runMix(targets []target, conns int, dur time.Duration) []*urlStats {
	client, tr := newClient(conns)
	defer tr.CloseIdleConnections()
	stats := make([]*urlStats, len(targets))
	for i, t := range targets {
		stats[i] = &urlStats{url: t.url}
	}
	pick := picker(targets)
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			for ctx.Err() == nil {
				i := pick(r)
				ms, ok := get(client, targets[i].url)
				if ctx.Err() != nil && !ok {
					break // cut off by the end of the run, not an error of the server
				}
				stats[i].add(ms, ok)
			}
		}()
	}
	wg.Wait()
	for _, s := range stats {
		s.elapsed = time.Since(start).Seconds()
	}
	return stats
}

func report(stats []*urlStats) bool {
	fmt.Printf("%-60s %10s %9s %9s %9s %7s\n", "url", "req/s", "p50 ms", "p99 ms", "max ms", "errors")
	failed := false
	for _, s := range stats {
		slices.Sort(s.lat)
		fmt.Printf("%-60s %10.0f %9.2f %9.2f %9.2f %7d\n", trim(s.url, 60), float64(len(s.lat))/s.elapsed,
			pct(s.lat, 0.5), pct(s.lat, 0.99), pct(s.lat, 1), s.errors)
		failed = failed || s.errors > 0
	}
	return failed
}

// soak sends rate requests per second (open loop: a slow server does not slow the sender) for dur, printing a
// line per interval with the server's resource figures, then the per-URL summary.
func soak(targets []target, rate int, dur, every time.Duration, metricsURL string) bool {
	client, tr := newClient(512)
	defer tr.CloseIdleConnections()
	stats := make([]*urlStats, len(targets))
	for i, t := range targets {
		stats[i] = &urlStats{url: t.url}
	}
	pick := picker(targets)
	r := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	var sent, errs, inflight atomic.Int64
	var window struct {
		sync.Mutex
		lat []float64
	}
	// Every 5 ms, send what the schedule owes: a ticker per request would drop ticks at high rates.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	rep := time.NewTicker(every)
	defer rep.Stop()
	end := time.After(dur)
	start := time.Now()
	var wg sync.WaitGroup
	fmt.Printf("%8s %9s %7s %9s %10s %9s %9s %6s\n", "t", "req/s", "errors", "p99 ms", "in flight", "goroutns", "rss MiB", "fds")
	last, lastSent := start, int64(0)
	for {
		select {
		case now := <-tick.C:
			owed := int64(now.Sub(start).Seconds()*float64(rate)) - sent.Load()
			for range owed {
				sent.Add(1)
				if inflight.Load() > 2000 {
					errs.Add(1) // the server is not keeping up: count a refusal rather than pile up goroutines
					continue
				}
				i := pick(r)
				inflight.Add(1)
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer inflight.Add(-1)
					ms, ok := get(client, targets[i].url)
					stats[i].add(ms, ok)
					if !ok {
						errs.Add(1)
						return
					}
					window.Lock()
					window.lat = append(window.lat, ms)
					window.Unlock()
				}()
			}
		case now := <-rep.C:
			window.Lock()
			lat := window.lat
			window.lat = nil
			window.Unlock()
			slices.Sort(lat)
			n := sent.Load()
			g, rss, fds := sample(metricsURL)
			fmt.Printf("%8s %9.0f %7d %9.2f %10d %9s %9s %6s\n", now.Sub(start).Round(time.Second), float64(n-lastSent)/now.Sub(last).Seconds(),
				errs.Load(), pct(lat, 0.99), inflight.Load(), g, rss, fds)
			last, lastSent = now, n
		case <-end:
			wg.Wait()
			fmt.Printf("sent %d requests in %v, %d errors\n", sent.Load(), time.Since(start).Round(time.Second), errs.Load())
			for _, s := range stats {
				s.elapsed = time.Since(start).Seconds()
			}
			report(stats)
			return errs.Load() > 0
		}
	}
}

// sample reads go_goroutines, process_resident_memory_bytes and process_open_fds from a Prometheus text page.
func sample(metricsURL string) (goroutines, rssMiB, fds string) {
	goroutines, rssMiB, fds = "-", "-", "-"
	if metricsURL == "" {
		return
	}
	client := &http.Client{Timeout: 5 * time.Second}
	res, err := client.Get(metricsURL)
	if err != nil {
		return
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "go_goroutines":
			goroutines = val
		case "process_resident_memory_bytes":
			if f, err := strconv.ParseFloat(val, 64); err == nil {
				rssMiB = strconv.FormatFloat(f/(1<<20), 'f', 1, 64)
			}
		case "process_open_fds":
			fds = val
		}
	}
	return
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n+3:]
}
