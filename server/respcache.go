package server

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/switchboard/switchboard/seeds"
)

// The catalog answers change only when the catalogs are rebuilt or refreshed (and, for the statuses judged against a shutdown
// date, from one day to the next), yet each request would encode, hash and compress them again: /pricing is 655
// KB. answerCache keeps the final bytes of recent catalog answers, compressed as the client asked, with their
// ETag, and replays them; a conditional request that names the ETag gets 304 straight from it.

const (
	// answerCacheEntries bounds the answers kept (least recently used go first).
	answerCacheEntries = 128
	// answerCacheMaxBytes bounds one answer kept: larger ones are served as they are made.
	answerCacheMaxBytes = 1 << 20
)

// catalogGeneration names the catalog set in service; "" when the catalogs cannot be read (the handlers answer
// that error themselves).
func catalogGeneration() string {
	set, err := seeds.Current()
	if err != nil {
		return ""
	}
	return strconv.FormatUint(set.Generation(), 10)
}

type cachedAnswer struct {
	header http.Header
	body   []byte
}

// answerCache replays GET answers whose Cache-Control is CatalogCacheControl (the validator sets it from the
// operation: catalogs, not live status). The key is the day (UTC), the path with its query, and the request's
// Accept-Encoding, which decides the representation.
func answerCache(now func() time.Time) func(http.Handler) http.Handler {
	cache, err := lru.New[string, *cachedAnswer](answerCacheEntries)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, APIPrefix+"/") {
				next.ServeHTTP(w, r)
				return
			}
			// The catalog generation is part of the key: a catalog refresh makes every kept answer stale.
			key := catalogGeneration() + " " + now().UTC().Format(time.DateOnly) + " " + r.URL.RequestURI() + " " + strings.Join(r.Header.Values("Accept-Encoding"), ",")
			if a, ok := cache.Get(key); ok {
				h := w.Header()
				for k, v := range a.header {
					h[k] = v
				}
				if tag := a.header.Get("ETag"); tag != "" && match(r.Header.Values("If-None-Match"), tag) != "" {
					notModified(w)
					return
				}
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(a.body)
				return
			}
			// What outer layers set (the request ID, a client's rate-limit headers) is not part of the answer.
			outer := make([]string, 0, len(w.Header()))
			for k := range w.Header() {
				outer = append(outer, k)
			}
			rec := &answerRecorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			if rec.status == http.StatusOK && !rec.tooBig && w.Header().Get("Cache-Control") == CatalogCacheControl {
				kept := http.Header{}
				for k, v := range w.Header() {
					if !slices.Contains(outer, k) {
						kept[k] = slices.Clone(v)
					}
				}
				cache.Add(key, &cachedAnswer{header: kept, body: rec.body.Bytes()})
			}
		})
	}
}

// answerRecorder passes an answer through and keeps a copy of its bytes, up to answerCacheMaxBytes.
type answerRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	// tooBig is set when the answer is not to be kept: over answerCacheMaxBytes, streamed, or (decided at the
	// first write) not a catalog answer.
	tooBig  bool
	decided bool
}

func (a *answerRecorder) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerRecorder) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	if !a.decided {
		// The validator set Cache-Control before the handler wrote: an answer that will not be kept (live
		// status, errors) is not copied.
		a.decided = true
		a.tooBig = a.status != http.StatusOK || a.Header().Get("Cache-Control") != CatalogCacheControl
	}
	if !a.tooBig {
		if a.body.Len()+len(b) > answerCacheMaxBytes {
			a.tooBig = true
			a.body = bytes.Buffer{}
		} else {
			a.body.Write(b)
		}
	}
	return a.ResponseWriter.Write(b)
}

// Flush marks a streamed answer, which is not kept.
func (a *answerRecorder) Flush() {
	a.tooBig = true
	_ = http.NewResponseController(a.ResponseWriter).Flush()
}

func (a *answerRecorder) Unwrap() http.ResponseWriter { return a.ResponseWriter }
