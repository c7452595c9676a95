package simulator

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Handler returns the HTTP handler: the control API under /_control and every provider's page at its PagePath.
func (s *Simulator) Handler() http.Handler {
	return http.HandlerFunc(s.serveHTTP)
}

func (s *Simulator) serveHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if path == "/_control" || strings.HasPrefix(path, "/_control/") {
		s.serveControl(w, r)
		return
	}
	id, ok := s.byPath[path]
	if !ok && !strings.HasSuffix(path, "/") {
		// A page at the root of its host ("https://status.example.com/") also answers without the final slash.
		id, ok = s.byPath[path+"/"]
	}
	if !ok {
		writeError(w, http.StatusNotFound, "no status page at "+path)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed on a status page: use GET or HEAD")
		return
	}
	s.servePage(w, r, s.snapshot(id))
}

// servePage answers one page request under the scenario of st.
func (s *Simulator) servePage(w http.ResponseWriter, r *http.Request, st *state) {
	if st.sc.DelayMS > 0 {
		switch s.wait(r.Context(), time.Duration(st.sc.DelayMS)*time.Millisecond) {
		case waitClientGone:
			return // nobody to answer
		case waitClosed:
			writeHTML(w, http.StatusServiceUnavailable, htmlShuttingDown)
			return
		}
	}
	switch st.sc.Fail {
	case FailTimeout:
		switch s.wait(r.Context(), s.holdLimit) {
		case waitClientGone:
			return
		case waitClosed:
			writeHTML(w, http.StatusServiceUnavailable, htmlShuttingDown)
		default:
			writeHTML(w, http.StatusGatewayTimeout, html504)
		}
		return
	case FailHTTP500:
		writeHTML(w, http.StatusInternalServerError, html500)
		return
	case FailGarbage:
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(garbageBody)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(garbageBody))
		return
	case FailReset:
		resetConnection(w)
		return
	}

	pg := st.page
	h := w.Header()
	if pg.code != http.StatusOK {
		// Only the reachability format answers anything but 200: its page is down. Errors carry no validators.
		h.Set("Content-Type", pg.contentType)
		h.Set("Retry-After", "60")
		h.Set("Content-Length", strconv.Itoa(len(pg.body)))
		w.WriteHeader(pg.code)
		_, _ = w.Write(pg.body)
		return
	}
	h.Set("ETag", pg.etag)
	h.Set("Last-Modified", pg.lastModified.UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "public, max-age=0, must-revalidate")
	if notModified(r, pg) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", pg.contentType)
	h.Set("Content-Length", strconv.Itoa(len(pg.body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pg.body)
}

// notModified applies If-None-Match, or If-Modified-Since when there is no If-None-Match (RFC 9110 13.2.2).
func notModified(r *http.Request, pg *page) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return etagListMatches(inm, pg.etag)
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" {
		return false
	}
	t, err := http.ParseTime(ims)
	if err != nil {
		return false
	}
	return !pg.lastModified.Truncate(time.Second).After(t)
}

// etagListMatches reports whether the If-None-Match list names etag, with the weak comparison.
func etagListMatches(list, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, tag := range strings.Split(list, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
			return true
		}
	}
	return false
}

type waitResult int

const (
	waitElapsed    waitResult = iota // the full duration passed
	waitClientGone                   // the request's context ended (the client went away)
	waitClosed                       // the simulator was closed
)

// wait sleeps for d unless the client goes away or the simulator is closed first.
func (s *Simulator) wait(ctx context.Context, d time.Duration) waitResult {
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return waitElapsed
	case <-ctx.Done():
		return waitClientGone
	case <-s.done:
		return waitClosed
	}
}

// resetConnection closes the client's connection without answering: with a TCP reset where the connection can
// be hijacked, by aborting the handler otherwise (HTTP/2, where the stream is reset).
func resetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0) // RST instead of FIN
	}
	_ = conn.Close()
}

func writeHTML(w http.ResponseWriter, code int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}

const (
	html500 = "<html>\r\n<head><title>500 Internal Server Error</title></head>\r\n<body>\r\n" +
		"<center><h1>500 Internal Server Error</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
	html504 = "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n" +
		"<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
	htmlShuttingDown = "<html><head><title>503 Service Unavailable</title></head>" +
		"<body><h1>503 Service Unavailable</h1><p>The status-page simulator is shutting down.</p></body></html>\n"
	// garbageBody is what a JSON client gets from a misbehaving CDN: an HTML challenge page, cut off mid-way,
	// with a fragment of JSON after it. It is neither JSON nor XML.
	garbageBody = "<!DOCTYPE html><html lang=\"en-US\"><head><title>Just a moment...</title>" +
		"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\"><meta name=\"robots\" content=\"noindex,nofollow\">" +
		"<style>*{box-sizing:border-box;margin:0;padding:0}html{line-height:1.15}</style>" +
		"<script src=\"/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8c1f2e3d4a5b6c7d\"></script>" +
		"</head><body><div class=\"main-wrapper\" " +
		"role=\"main\"><div class=\"main-content\"><noscript><div class=\"h2\"><span id=\"challenge-error-text\">Enable JavaScript " +
		"and cookies to continue</span></div></noscript></div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: \"" +
		"{\"page\":{\"id\":\"kctbh9vrtdwd\",\"name\":\"St"
)
