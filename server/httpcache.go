package server

import (
	"bytes"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/klauspost/compress/gzhttp"
)

// HTTP as caches and clients expect it (RFC 9110, 9111): compressed when the client accepts it, a strong ETag on
// every successful GET answer so a client that polls revalidates with If-None-Match and gets 304 with no body,
// Cache-Control from the OpenAPI operation, HEAD wherever GET is.

// CatalogCacheControl is the Cache-Control of the reference catalogs and the other answers that change only when
// the service is rebuilt: an hour, then revalidation (a 304 costs a client a few bytes).
const CatalogCacheControl = "public, max-age=3600, must-revalidate"

// cacheControlExtension is the operation extension that states an answer's Cache-Control when it is not
// CatalogCacheControl: `no-cache` for live answers, `no-store` for paid or private ones.
const cacheControlExtension = "x-cache-control"

// gzipSuffix marks the ETag of a gzip-compressed answer (gzhttp makes it "-zstd" for zstd): a strong ETag must
// differ between representations.
const gzipSuffix = "-gzip"

// encodingSuffixes are the ETag suffixes of the compressed representations.
var encodingSuffixes = []string{gzipSuffix, "-zstd"}

// cacheControlOf is the Cache-Control of an operation's GET answers.
func cacheControlOf(op *openapi3.Operation) string {
	if s, ok := op.Extensions[cacheControlExtension].(string); ok && s != "" {
		return s
	}
	return CatalogCacheControl
}

// compressible are the media types worth compressing; event streams are left alone so that each event reaches
// the client when it is written.
func compressible(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	switch {
	case mt == "application/json", strings.HasSuffix(mt, "+json"), mt == "application/javascript",
		mt == "image/svg+xml", mt == "text/html", mt == "text/css", mt == "text/plain", mt == "application/yaml":
		return true
	}
	return false
}

// compress is the compression middleware (klauspost/compress gzhttp): answers of 1 KiB or more, of a compressible
// type, in zstd or gzip as the client accepts (zstd preferred); the ETag of a compressed answer gets its suffix.
func compress() (func(http.Handler) http.Handler, error) {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(1024), gzhttp.ContentTypeFilter(compressible), gzhttp.SuffixETag(gzipSuffix))
	if err != nil {
		return nil, err
	}
	return func(next http.Handler) http.Handler { return wrap(next) }, nil
}

// etagMaxBytes bounds the answer etags buffers to hash: larger answers pass through without an ETag.
const etagMaxBytes = 8 << 20

// etags gives every 200 answer to GET or HEAD a strong ETag (a hash of its body) unless the handler set one,
// and answers 304 Not Modified, with no body, when the request's If-None-Match names it. Event streams and
// answers over etagMaxBytes are passed through as they are written.
func etags(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		ew := &etagWriter{w: w, buf: heldAnswers.Get().(*bytes.Buffer)}
		defer ew.release()
		next.ServeHTTP(ew, r)
		ew.finish(r)
	})
}

// heldAnswers are the buffers etags hold answers in: a fresh buffer grows by doubling to the answer's size on
// every request (a fifth of a /health request's time). Buffers that grew past heldAnswerMaxKeep are dropped
// rather than kept, so that one large catalog answer does not pin its memory.
var heldAnswers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const heldAnswerMaxKeep = 256 << 10

func (e *etagWriter) release() {
	if e.buf.Cap() <= heldAnswerMaxKeep {
		e.buf.Reset()
		heldAnswers.Put(e.buf)
	}
	e.buf = nil
}

// etagWriter holds a successful answer until it is complete, to hash it.
type etagWriter struct {
	w      http.ResponseWriter
	status int
	buf    *bytes.Buffer
	// passing is set once the answer goes straight through (not a 200, a stream, too large, or flushed).
	passing bool
}

func (e *etagWriter) Header() http.Header { return e.w.Header() }

func (e *etagWriter) WriteHeader(code int) {
	if e.status != 0 {
		return
	}
	e.status = code
	if code >= 400 {
		// An error is no answer to keep: a cache must not serve a 500 or a 404 for an hour.
		e.w.Header().Set("Cache-Control", "no-store")
	}
	ct := e.w.Header().Get("Content-Type")
	if code != http.StatusOK || strings.HasPrefix(ct, "text/event-stream") || e.w.Header().Get("ETag") != "" {
		e.pass()
	}
}

func (e *etagWriter) pass() {
	if e.passing {
		return
	}
	e.passing = true
	e.w.WriteHeader(e.status)
	if e.buf.Len() > 0 {
		_, _ = e.w.Write(e.buf.Bytes())
		e.buf.Reset()
	}
}

func (e *etagWriter) Write(b []byte) (int, error) {
	if e.status == 0 {
		e.WriteHeader(http.StatusOK)
	}
	if e.passing {
		return e.w.Write(b)
	}
	if e.buf.Len()+len(b) > etagMaxBytes {
		e.pass()
		return e.w.Write(b)
	}
	return e.buf.Write(b)
}

// Flush sends what is held: a handler that flushes is streaming, and gets no ETag.
func (e *etagWriter) Flush() {
	if e.status == 0 {
		e.WriteHeader(http.StatusOK)
	}
	e.pass()
	_ = http.NewResponseController(e.w).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer (deadlines, flushing).
func (e *etagWriter) Unwrap() http.ResponseWriter { return e.w }

// finish writes the held answer with its ETag, or 304 when the client holds it already.
func (e *etagWriter) finish(r *http.Request) {
	if e.passing {
		return
	}
	if e.status == 0 {
		e.status = http.StatusOK
	}
	// A strong validator only has to change when the bytes do; a 64-bit xxhash and the length tell two
	// versions of one answer apart as surely as a cryptographic hash, at a tenth of its cost.
	tag := `"` + strconv.FormatUint(xxhash.Sum64(e.buf.Bytes()), 36) + "-" + strconv.Itoa(e.buf.Len()) + `"`
	h := e.w.Header()
	h.Set("ETag", tag)
	if matched := match(r.Header.Values("If-None-Match"), tag); matched != "" {
		// RFC 9110 15.4.5: a 304 carries the validators and caching headers of the 200 it stands for (the
		// compressed one's tag when the client holds that one), and no content.
		h.Set("ETag", matched)
		notModified(e.w)
		return
	}
	e.w.WriteHeader(e.status)
	_, _ = e.w.Write(e.buf.Bytes())
}

// notModified answers 304 with the headers already set but those that describe a body, which a 304 has not.
func notModified(w http.ResponseWriter) {
	h := w.Header()
	h.Del("Content-Type")
	h.Del("Content-Length")
	h.Del("Content-Encoding")
	w.WriteHeader(http.StatusNotModified)
}

// match returns the entity tag of the representation an If-None-Match list names: tag, or a compressed
// representation's (tag with an encodingSuffixes suffix), by the weak comparison RFC 9110 13.1.2 prescribes (W/
// ignored); "*" names tag. "" when it names none.
func match(values []string, tag string) string {
	bare := strings.TrimSuffix(tag, `"`)
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == "*" || t == tag {
				return tag
			}
			// tag with an encoding suffix, compared piecewise: no string is built for a request that polls.
			if rest, ok := strings.CutPrefix(t, bare); ok {
				for _, suffix := range encodingSuffixes {
					if rest == suffix+`"` {
						return t
					}
				}
			}
		}
	}
	return ""
}
