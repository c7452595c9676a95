package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Side by side (-bare): each URL is first fetched once from the service; a bare net/http server on loopback then
// answers the same request with the same status, headers and bytes, with no work at all. Both get the same
// closed-loop load, one after the other, for a few rounds, and the ratio of their rates says what the service
// costs over writing the bytes. A URL may be prefixed: "gzip:" sends Accept-Encoding: gzip (the compressed
// answer); "304:" revalidates with the answer's ETag (If-None-Match) and expects 304.

// variant is one request of the comparison.
type variant struct {
	name   string
	url    string
	header http.Header
	want   int
}

func parseVariant(arg string) (variant, error) {
	v := variant{name: arg, url: arg, header: http.Header{}, want: http.StatusOK}
	switch {
	case strings.HasPrefix(arg, "gzip:"):
		v.url = strings.TrimPrefix(arg, "gzip:")
		v.header.Set("Accept-Encoding", "gzip")
	case strings.HasPrefix(arg, "304:"):
		v.url = strings.TrimPrefix(arg, "304:")
		v.want = http.StatusNotModified
	}
	if _, err := url.ParseRequestURI(v.url); err != nil {
		return v, fmt.Errorf("%q: %w", arg, err)
	}
	return v, nil
}

// recorded is an answer of the service, as the bare server repeats it.
type recorded struct {
	status int
	header http.Header
	body   []byte
}

// key tells the bare server's answers apart: the path and query, and the headers that choose the answer.
func key(r *http.Request) string {
	return r.URL.RequestURI() + "|" + r.Header.Get("Accept-Encoding") + "|" + r.Header.Get("If-None-Match")
}

func sideBySide(args []string, conns int, dur time.Duration, rounds int) bool {
	var vs []variant
	for _, a := range args {
		v, err := parseVariant(a)
		if err != nil {
			fmt.Println("loadgen:", err)
			return true
		}
		vs = append(vs, v)
	}
	tr := &http.Transport{DisableCompression: true}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	answers := map[string]recorded{}
	for i := range vs {
		v := &vs[i]
		if v.want == http.StatusNotModified {
			res, err := client.Get(v.url)
			if err != nil {
				fmt.Println("loadgen:", err)
				return true
			}
			res.Body.Close()
			v.header.Set("If-None-Match", res.Header.Get("ETag"))
		}
		req, _ := http.NewRequest(http.MethodGet, v.url, nil)
		req.Header = v.header.Clone()
		res, err := client.Do(req)
		if err != nil {
			fmt.Println("loadgen:", err)
			return true
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != v.want {
			fmt.Printf("loadgen: %s answered %d (want %d): %v\n", v.name, res.StatusCode, v.want, err)
			return true
		}
		h := http.Header{}
		for _, k := range []string{"Content-Type", "Content-Encoding", "Etag", "Cache-Control", "Vary"} {
			if val := res.Header.Get(k); val != "" {
				h.Set(k, val)
			}
		}
		answers[key(req)] = recorded{status: res.StatusCode, header: h, body: body}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("loadgen:", err)
		return true
	}
	bare := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[key(r)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = bare.Serve(ln) }()
	defer bare.Close()

	fmt.Printf("%-50s %12s %12s %7s\n", "request", "service/s", "bare/s", "ratio")
	failed := false
	for _, v := range vs {
		u, _ := url.Parse(v.url)
		bareURL := "http://" + ln.Addr().String() + u.RequestURI()
		var svc, raw float64
		for range rounds {
			n, errs := closedLoop(v.url, v.header, v.want, conns, dur)
			m, errs2 := closedLoop(bareURL, v.header, v.want, conns, dur)
			svc, raw = svc+n, raw+m
			failed = failed || errs > 0 || errs2 > 0
		}
		fmt.Printf("%-50s %12.0f %12.0f %7.2f\n", trim(v.name, 50), svc/float64(rounds), raw/float64(rounds), svc/raw)
	}
	return failed
}

// closedLoop sends GETs with header from conns connections for dur; it returns the rate of answers with the
// wanted status and the count of others.
func closedLoop(u string, header http.Header, want, conns int, dur time.Duration) (float64, int64) {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var ok, bad atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
				req.Header = header.Clone()
				res, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						bad.Add(1)
					}
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode == want {
					ok.Add(1)
				} else {
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(ok.Load()) / time.Since(start).Seconds(), bad.Load()
}
