package rest

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression of responses. A 2,000-session board is 2.6 MB of JSON: on any real network sending
// it raw costs more than building it, and it shrinks to a few percent of that. Every response of
// a compressible type (JSON, GraphQL, the calendar feed, text) goes out compressed when the client
// accepts zstd or gzip, streamed through the encoder as the handler writes it — never assembled
// twice. Bodies under compressMinBytes go out as they are: the framing would outweigh the gain.

// compressMinBytes is the smallest body worth compressing; errors, acknowledgements and small
// records stay raw.
const compressMinBytes = 1024

// gzipLevel trades CPU for size: klauspost's level 5 keeps large JSON under a tenth of its size
// while costing a fraction of what producing the JSON costs.
const gzipLevel = 5

var gzipPool = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzipLevel)
	return w
}}

// zstd encoders are kept small: one goroutine each (requests already run in parallel) and a 1 MiB
// window, so that many responses compressed at once do not cost tens of MB each.
var zstdPool = sync.Pool{New: func() any {
	w, _ := zstd.NewWriter(io.Discard, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
	return w
}}

// compressor is what gzip.Writer and zstd.Encoder have in common.
type compressor interface {
	io.Writer
	Flush() error
	Close() error
	Reset(io.Writer)
}

// compress negotiates the response's encoding from Accept-Encoding and compresses what the
// handler writes. Responses that already carry a Content-Encoding (the /metrics handler encodes
// its own), protocol upgrades and HEAD requests pass through untouched.
func compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		cw := &compressWriter{ResponseWriter: w, encoding: negotiateEncoding(r.Header.Values("Accept-Encoding"))}
		next.ServeHTTP(cw, r)
		cw.close()
	})
}

// negotiateEncoding picks zstd, gzip or "" (identity) from the Accept-Encoding header's values,
// honoring q=0 refusals and the * wildcard.
func negotiateEncoding(values []string) string {
	q := map[string]float64{}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			weight := 1.0
			for _, p := range strings.Split(params, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						weight = f
					}
				}
			}
			q[name] = weight
		}
	}
	accepts := func(enc string) bool {
		if w, ok := q[enc]; ok {
			return w > 0
		}
		w, ok := q["*"]
		return ok && w > 0
	}
	switch {
	case accepts("zstd"):
		return "zstd"
	case accepts("gzip"):
		return "gzip"
	}
	return ""
}

// compressible reports whether a body of this Content-Type gains from compression.
func compressible(contentType string) bool {
	mediaType, _, _ := strings.Cut(contentType, ";")
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	switch {
	case mediaType == "text/event-stream": // a stream's events must reach the client as written
		return false
	case strings.HasPrefix(mediaType, "text/"),
		mediaType == "application/json",
		strings.HasSuffix(mediaType, "+json"),
		mediaType == "application/javascript",
		mediaType == "application/xml",
		mediaType == "image/svg+xml":
		return true
	}
	return false
}

// compressWriter holds back the status and the first compressMinBytes of the body, then decides
// once: compress everything (and stream the rest through the encoder), or pass it all through.
type compressWriter struct {
	http.ResponseWriter
	// encoding is the negotiated encoding; "" when the client accepts none of ours.
	encoding string
	status   int
	decided  bool
	buf      []byte
	enc      compressor
}

// WriteHeader holds the status until the body shows whether to compress; responses without a
// body are decided at once.
func (w *compressWriter) WriteHeader(status int) {
	if w.decided || w.status != 0 {
		return // superfluous, as net/http treats it
	}
	if status < http.StatusOK {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.status = status
	if status == http.StatusNoContent || status == http.StatusNotModified {
		w.decide(false)
	}
}

func (w *compressWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !w.decided {
		if w.encoding == "" || !w.eligible() {
			w.decide(false)
		} else if len(w.buf)+len(p) < compressMinBytes {
			w.buf = append(w.buf, p...)
			return len(p), nil
		} else {
			w.decide(true)
		}
	}
	if w.enc != nil {
		return w.enc.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// eligible reports whether the response, as the handler has shaped its headers, may be
// compressed; it also adds Vary for every compressible response, compressed or not, so that
// caches keep the encodings apart.
func (w *compressWriter) eligible() bool {
	h := w.Header()
	if !compressible(h.Get("Content-Type")) {
		return false
	}
	addVary(h)
	// no-transform asks for the bytes as they are (file downloads: Range and Content-Length).
	return h.Get("Content-Encoding") == "" && !strings.Contains(h.Get("Cache-Control"), "no-transform")
}

// decide sends the status and what was held back, through a new encoder when on.
func (w *compressWriter) decide(on bool) {
	w.decided = true
	h := w.Header()
	if !on {
		if w.status != http.StatusNoContent && w.status != http.StatusNotModified && compressible(h.Get("Content-Type")) {
			addVary(h)
		}
		w.ResponseWriter.WriteHeader(w.status)
		if len(w.buf) > 0 {
			_, _ = w.ResponseWriter.Write(w.buf)
		}
		w.buf = nil
		return
	}
	h.Del("Content-Length")
	h.Set("Content-Encoding", w.encoding)
	if etag := h.Get("ETag"); strings.HasPrefix(etag, `"`) {
		// A strong validator names one byte sequence; the compressed body is another.
		h.Set("ETag", "W/"+etag)
	}
	w.ResponseWriter.WriteHeader(w.status)
	if w.encoding == "zstd" {
		w.enc = zstdPool.Get().(*zstd.Encoder)
	} else {
		w.enc = gzipPool.Get().(*gzip.Writer)
	}
	w.enc.Reset(w.ResponseWriter)
	if len(w.buf) > 0 {
		_, _ = w.enc.Write(w.buf)
	}
	w.buf = nil
}

// close ends the response: a body smaller than compressMinBytes goes out raw; an encoder is
// flushed, closed and returned to its pool.
func (w *compressWriter) close() {
	if !w.decided {
		if w.status == 0 {
			return // the handler wrote nothing; net/http answers 200 with an empty body
		}
		w.decide(false)
		return
	}
	if w.enc == nil {
		return
	}
	_ = w.enc.Close()
	w.enc.Reset(io.Discard)
	switch e := w.enc.(type) {
	case *zstd.Encoder:
		zstdPool.Put(e)
	case *gzip.Writer:
		gzipPool.Put(e)
	}
	w.enc = nil
}

// Flush sends what the handler wrote so far (streamed responses): a flush before the decision
// decides, compressing when the response qualifies.
func (w *compressWriter) Flush() {
	if !w.decided {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		w.decide(w.encoding != "" && w.eligible())
	}
	if w.enc != nil {
		_ = w.enc.Flush()
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *compressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func addVary(h http.Header) {
	for _, v := range h.Values("Vary") {
		for _, name := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(name), "Accept-Encoding") {
				return
			}
		}
	}
	h.Add("Vary", "Accept-Encoding")
}
