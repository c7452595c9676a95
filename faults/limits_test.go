package faults_test

import (
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSlowClientAndHugeHeaders checks the real server's transport limits: a client that sends its headers a
// byte at a time (slowloris) is cut off after the 5 s header deadline instead of holding a connection forever,
// and headers over 64 KiB are refused with 431 before any handler runs.
func TestSlowClientAndHugeHeaders(t *testing.T) {
	t.Parallel()
	svc := start(t, map[string]string{"DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "l.db"), "SWITCHBOARD_POLL": "false"})
	u, _ := url.Parse(svc.URL)

	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		buf := make([]byte, 1024)
		for {
			if _, err := conn.Read(buf); err != nil {
				closed <- time.Since(start)
				return
			}
		}
	}()
	go func() {
		for _, b := range []byte("GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 60)) {
			if _, err := conn.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	select {
	case d := <-closed:
		if d < 4*time.Second {
			t.Errorf("the slow client was cut off after %v, before the 5 s header deadline", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("a client sending its headers a byte every 200 ms still held its connection after 15 s")
	}

	req, _ := http.NewRequest(http.MethodGet, svc.URL+"/api/v1/health", nil)
	req.Header.Set("X-Huge", strings.Repeat("h", 100<<10))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("100 KiB of headers: %d, want 431", res.StatusCode)
	}
	// The server still answers normally afterwards.
	res, err = http.Get(svc.URL + "/api/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("/api/v1/health after the abuse: %d", res.StatusCode)
	}
}
