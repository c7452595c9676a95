package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
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
//
// The bare server runs in a process of its own (this binary again, with -bare-serve), as the service does: a
// server inside the load generator's process shares its Go scheduler, and a goroutine woken by its own peer in
// the same runtime costs less than a wake-up across processes. Measured on 2 cores, that alone made the bare
// rate 15 to 20% higher than the same server in its own process (/healthz: 18,087/s in process, 14,249 to
// 15,594/s alone). -bare-inproc keeps the old arrangement for comparison.

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
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// bareHandler answers each request with the recorded answer of its key, and nothing else.
func bareHandler(answers map[string]recorded) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[key(r)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range a.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(a.Status)
		_, _ = w.Write(a.Body)
	})
}

// serveBare is the -bare-serve process: it reads the answers (JSON) from file, serves them on a loopback port it
// prints as its first line, and exits when its standard input closes (the load generator ended or died).
func serveBare(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var answers map[string]recorded
	if err := json.Unmarshal(b, &answers); err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	ln, srv, err := listenBare(answers)
	if err != nil {
		return err
	}
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); _ = srv.Close() }()
	fmt.Println(ln.Addr().String())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// listenBare is the bare server over answers and a loopback port for it, not yet serving.
func listenBare(answers map[string]recorded) (net.Listener, *http.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	return ln, &http.Server{Handler: bareHandler(answers), ReadHeaderTimeout: 5 * time.Second}, nil
}

// startBare starts the bare server: in a child process (this binary with -bare-serve) unless inProcess. It
// returns the server's address and the function that stops it.
func startBare(answers map[string]recorded, inProcess bool) (string, func(), error) {
	if inProcess {
		ln, srv, err := listenBare(answers)
		if err != nil {
			return "", nil, err
		}
		go func() { _ = srv.Serve(ln) }()
		return ln.Addr().String(), func() { _ = srv.Close() }, nil
	}
	f, err := os.CreateTemp("", "loadgen-bare-*.json")
	if err != nil {
		return "", nil, err
	}
	defer os.Remove(f.Name())
	if err := json.NewEncoder(f).Encode(answers); err != nil {
		f.Close()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		return "", nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self, "-bare-serve", f.Name())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = stdin.Close(); _ = cmd.Wait() }
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		stop()
		return "", nil, fmt.Errorf("starting the bare server: %w", err)
	}
	return strings.TrimSpace(addr), stop, nil
}

// key tells the bare server's answers apart: the path and query, and the headers that choose the answer.
func key(r *http.Request) string {
	return r.URL.RequestURI() + "|" + r.Header.Get("Accept-Encoding") + "|" + r.Header.Get("If-None-Match")
}

func sideBySide(args []string, conns int, dur time.Duration, rounds int, inProcess bool) bool {
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
		answers[key(req)] = recorded{Status: res.StatusCode, Header: h, Body: body}
	}
	addr, stop, err := startBare(answers, inProcess)
	if err != nil {
		fmt.Println("loadgen:", err)
		return true
	}
	defer stop()

	fmt.Printf("%-50s %12s %12s %7s\n", "request", "service/s", "bare/s", "ratio")
	failed := false
	for _, v := range vs {
		u, _ := url.Parse(v.url)
		bareURL := "http://" + addr + u.RequestURI()
		var svc, raw float64
		for i := range rounds {
			// The order alternates, so that a machine that speeds up or slows down over a run favours
			// neither side.
			var n, m float64
			var errs, errs2 int64
			if i%2 == 0 {
				n, errs = closedLoop(v.url, v.header, v.want, conns, dur)
				m, errs2 = closedLoop(bareURL, v.header, v.want, conns, dur)
			} else {
				m, errs2 = closedLoop(bareURL, v.header, v.want, conns, dur)
				n, errs = closedLoop(v.url, v.header, v.want, conns, dur)
			}
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
