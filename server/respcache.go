package server

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/switchboard/switchboard/seeds"
)

// The catalog answers change only when the catalogs are rebuilt or refreshed (and, for the statuses judged against a shutdown
// date, from one day to the next), yet each request would encode, hash and compress them again: /pricing is 655
// KB. answerCache keeps the final bytes of recent catalog answers, compressed as the client asked, with their
// ETag, and replays them; a conditional request that names the ETag gets 304 straight from it.
//
// A live answer whose operation says `x-answer-reuse: second` depends only on the health snapshot and the second
// it is made in (/health: its timestamp is to the second). It is kept the same way while both are current, so
// that clients polling it many times a second cost a replay, not the whole chain of limits, validation and
// encoding.
//
// The cache sits in front of the in-flight bound and the request deadline: a replay holds no slot and waits for
// nothing. The client rate limit, when set, still comes first.

const (
	// answerCacheEntries bounds the catalog answers kept (least recently used go first).
	answerCacheEntries = 128
	// liveAnswerEntries bounds the per-second answers kept, apart from the catalogs': each second makes the last
	// one stale, and in the same cache they would push the catalog answers out.
	liveAnswerEntries = 16
	// answerCacheMaxBytes bounds one answer kept: larger ones are served as they are made.
	answerCacheMaxBytes = 1 << 20
	// answerReuseExtension is the operation extension that marks a live answer reusable within its second.
	answerReuseExtension = "x-answer-reuse"
)

// LiveEpocher is implemented by an API whose `x-answer-reuse: second` answers may be replayed while the health
// snapshot and the second (on the API's clock) they were made for are current; ok is false when there is no
// snapshot to name, and then nothing is replayed.
type LiveEpocher interface {
	LiveEpoch(ctx context.Context) (snapshot uint64, second int64, ok bool)
}

// reuse is how long an operation's answer may be replayed.
type reuse uint8

const (
	// reuseUnknown: not one of the document's fixed GET paths (templated, or no such path); kept only if the
	// answer says it is a catalog (its Cache-Control).
	reuseUnknown reuse = iota
	reuseNever
	reuseDaily  // a catalog answer: kept for the UTC day and the catalog set
	reuseSecond // x-answer-reuse: second
)

// answerReuse reads from the document how long each fixed GET path's answers may be replayed.
func answerReuse(doc *openapi3.T) map[string]reuse {
	out := map[string]reuse{}
	for path, item := range doc.Paths.Map() {
		op := item.Get
		if op == nil || strings.Contains(path, "{") {
			continue
		}
		switch {
		case op.Extensions[answerReuseExtension] == "second":
			out[APIPrefix+path] = reuseSecond
		case cacheControlOf(op) == CatalogCacheControl:
			out[APIPrefix+path] = reuseDaily
		default:
			out[APIPrefix+path] = reuseNever
		}
	}
	return out
}

// answerKey tells kept answers apart: the catalog set, the moment (UTC day, or snapshot and second), the path
// with its query, and the Accept-Encoding, which decides the representation.
type answerKey struct {
	generation uint64
	snapshot   uint64
	epoch      int64
	uri        string
	encoding   string
}

type cachedAnswer struct {
	header http.Header
	body   []byte
}

// answerCache replays GET answers as reuse (answerReuse) allows; live is nil when the API names no moment, and
// then nothing is kept per second.
func answerCache(paths map[string]reuse, live LiveEpocher, now func() time.Time) func(http.Handler) http.Handler {
	catalogs, err := lru.New[answerKey, *cachedAnswer](answerCacheEntries)
	if err != nil {
		panic(err) // only for a size below 1
	}
	lives, err := lru.New[answerKey, *cachedAnswer](liveAnswerEntries)
	if err != nil {
		panic(err)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet {
				next.ServeHTTP(w, r)
				return
			}
			kind := paths[r.URL.Path]
			if kind == reuseNever || (kind == reuseSecond && live == nil) ||
				(kind == reuseUnknown && !strings.HasPrefix(r.URL.Path, APIPrefix+"/")) {
				next.ServeHTTP(w, r)
				return
			}
			set, err := seeds.Current()
			if err != nil {
				next.ServeHTTP(w, r) // the handlers answer that error themselves
				return
			}
			// The catalog generation is part of the key: a catalog refresh makes every kept answer stale.
			key := answerKey{generation: set.Generation(), uri: requestURI(r), encoding: acceptEncoding(r.Header)}
			cache := catalogs
			if kind == reuseSecond {
				cache = lives
				snap, second, ok := live.LiveEpoch(r.Context())
				if !ok {
					next.ServeHTTP(w, r)
					return
				}
				key.snapshot, key.epoch = snap, second
			} else {
				key.epoch = now().Unix() / 86400 // the UTC day
			}
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
			rec := &answerRecorder{ResponseWriter: w, anyCacheControl: kind == reuseSecond}
			next.ServeHTTP(rec, r)
			if rec.status == http.StatusOK && !rec.tooBig && rec.keep(w.Header()) {
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

// requestURI is the path and query the request was sent with: as received when the server read it (no string
// to build), else (a request made in process) from its URL.
func requestURI(r *http.Request) string {
	if r.RequestURI != "" && r.RequestURI[0] == '/' {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

// acceptEncoding is the request's Accept-Encoding, its lines joined.
func acceptEncoding(h http.Header) string {
	v := h.Values("Accept-Encoding")
	switch len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	}
	return strings.Join(v, ",")
}

// answerRecorder passes an answer through and keeps a copy of its bytes, up to answerCacheMaxBytes.
type answerRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	// anyCacheControl keeps a 200 whatever its Cache-Control (an x-answer-reuse answer); otherwise only catalog
	// answers are kept.
	anyCacheControl bool
	// tooBig is set when the answer is not to be kept: over answerCacheMaxBytes, streamed, or (decided at the
	// first write) not a catalog answer.
	tooBig  bool
	decided bool
}

// keep says whether an answer with these headers may be kept.
func (a *answerRecorder) keep(h http.Header) bool {
	return a.anyCacheControl || h.Get("Cache-Control") == CatalogCacheControl
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
		a.tooBig = a.status != http.StatusOK || !a.keep(a.Header())
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
