package files

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// IsMultipart reports whether r is a GraphQL multipart request (the Upload transport's). The
// router lets such a body past its 1 MiB cap: the transport bounds it itself, file by file.
func IsMultipart(r *http.Request) bool {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && r.Method == http.MethodPost && mediaType == "multipart/form-data"
}

// Transport serves the GraphQL multipart request specification: a part "operations" (the
// request), a part "map" (which variables each file fills), then the files. Each file is
// streamed to a temporary file while it arrives, counted against the upload limit: over it, the
// request is answered 413 payload_too_large at once and nothing is stored. A body that ends early
// (a truncated request, a client that went away) is answered invalid_body and leaves nothing.
// Operations then read the files as graphql.Upload values and store them with Service.Put; once
// the operation's transaction has ended, Settle removes what no row points at.
//
// Before any file part is read, Authorize judges the operation (its root fields by the caller's
// role, and the objects they name) and Uploads bounds the caller's uploads in flight: a refused request is answered without
// its files being read, so nothing is spooled for a caller who may not upload.
type Transport struct {
	Service *Service
	// Authorize, when set, judges the operation before the files are read; its error is the
	// answer.
	Authorize func(ctx context.Context, params *graphql.RawParams) error
	// Uploads, when set, bounds each caller's upload requests in flight.
	Uploads *Limiter
	// Budget bounds the operation once the files are in, as the handler's budget bounds other
	// requests; reading the files has its own, longer deadline (uploadReadTimeout).
	Budget time.Duration
}

var _ graphql.Transport = Transport{}

// maxFiles bounds the files of one request; maxFormPart bounds the operations and map parts.
const (
	maxFiles    = 5
	maxFormPart = 1 << 20
)

// uploadReadTimeout is how long reading one upload request may take: the server's read timeout
// (30 s) suits JSON bodies, not 50 MiB over a conference venue's network. uploadIdleTimeout is
// the minimum pace within it: a body from which nothing arrives for that long is given up, so a
// client trickling bytes cannot hold its slot and its spooled files for the whole ten minutes.
const (
	uploadReadTimeout = 10 * time.Minute
	uploadIdleTimeout = 30 * time.Second
)

// Supports accepts multipart POST requests.
func (Transport) Supports(r *http.Request) bool {
	return r.Header.Get("Upgrade") == "" && IsMultipart(r)
}

// Do reads the files, runs the operation, settles the stored files and answers.
func (t Transport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	w.Header().Set("Content-Type", "application/graphql-response+json")
	limit := t.Service.Limit()
	rc := http.NewResponseController(w)
	if t.Uploads != nil {
		release, err := t.Uploads.Acquire(r.Context())
		if err != nil {
			writeError(w, err)
			return
		}
		defer release()
	}
	end := time.Now().Add(uploadReadTimeout)
	_ = rc.SetWriteDeadline(end.Add(t.Budget + time.Minute))
	r.Body = &pacedBody{ReadCloser: http.MaxBytesReader(w, r.Body, maxFiles*(limit+maxFormPart)+2*maxFormPart), rc: rc, end: end}

	params, spooled, err := t.read(r, limit)
	defer func() {
		for _, f := range spooled {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err != nil {
		writeError(w, err)
		return
	}

	ctx, cancel := t.operationContext(r.Context())
	defer cancel()
	ctx, tracker := Track(ctx)
	start := graphql.Now()
	params.ReadTime = graphql.TraceTiming{Start: start, End: start}
	params.Headers = r.Header
	oc, gerr := exec.CreateOperationContext(ctx, params)
	if gerr != nil {
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, oc), gerr)
		w.WriteHeader(http.StatusUnprocessableEntity)
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, oc)
	resp := responses(ctx)
	// The operation's transaction has ended: what it stored and did not keep goes now.
	t.Service.Settle(ctx, tracker)
	_ = json.NewEncoder(w).Encode(resp)
}

// operationContext is the context the operation runs in once the files are in: a fresh budget,
// still cancelled when the client goes away.
func (t Transport) operationContext(parent context.Context) (context.Context, context.CancelFunc) {
	budget := t.Budget
	if budget <= 0 {
		budget = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), budget)
	stop := context.AfterFunc(parent, func() {
		if !errors.Is(parent.Err(), context.DeadlineExceeded) {
			cancel() // the client went away
		}
	})
	return ctx, func() { stop(); cancel() }
}

// read parses the multipart body, spooling each file to a temporary file.
func (t Transport) read(r *http.Request, limit int64) (*graphql.RawParams, []*os.File, error) {
	var spooled []*os.File
	malformed := func(msg string) error { return apperr.InvalidBody("%s", msg) }
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, nil, malformed("The body is not a GraphQL multipart request")
	}
	params := &graphql.RawParams{}
	if err := decodePart(mr, "operations", params); err != nil {
		return nil, nil, err
	}
	var fileMap map[string][]string
	if err := decodePart(mr, "map", &fileMap); err != nil {
		return nil, nil, err
	}
	if t.Authorize != nil {
		if err := t.Authorize(r.Context(), params); err != nil {
			return nil, nil, err
		}
	}
	if len(fileMap) > maxFiles {
		return nil, nil, malformed(fmt.Sprintf("A request may carry at most %d files", maxFiles))
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, spooled, bodyError(err, limit)
		}
		key := part.FormName()
		paths, ok := fileMap[key]
		if !ok || len(paths) == 0 {
			return nil, spooled, malformed(fmt.Sprintf("The part %q is not in the map", key))
		}
		delete(fileMap, key)
		f, err := os.CreateTemp(t.Service.TempDir, "podium-upload-*")
		if err != nil {
			return nil, spooled, fmt.Errorf("files: spool upload: %w", err)
		}
		spooled = append(spooled, f)
		n, err := io.Copy(f, io.LimitReader(part, limit+1))
		if err != nil {
			return nil, spooled, bodyError(err, limit)
		}
		if n > limit {
			return nil, spooled, TooLarge(limit)
		}
		for _, path := range paths {
			// Each variable reads the file from its start.
			rd, err := os.Open(f.Name())
			if err != nil {
				return nil, spooled, fmt.Errorf("files: reopen upload: %w", err)
			}
			spooled = append(spooled, rd)
			up := graphql.Upload{File: rd, Size: n, Filename: part.FileName(), ContentType: part.Header.Get("Content-Type")}
			if gerr := params.AddUpload(up, key, path); gerr != nil {
				return nil, spooled, malformed(gerr.Message)
			}
		}
	}
	for key := range fileMap {
		return nil, spooled, malformed(fmt.Sprintf("The file %q named in the map is missing", key))
	}
	return params, spooled, nil
}

// decodePart reads the next part, which must be the form field name, as JSON into v.
func decodePart(mr *multipart.Reader, name string, v any) error {
	part, err := mr.NextPart()
	if err != nil {
		return bodyError(err, 0)
	}
	if part.FormName() != name {
		return apperr.InvalidBody("The part %q must come next in a GraphQL multipart request", name)
	}
	dec := json.NewDecoder(io.LimitReader(part, maxFormPart))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return apperr.InvalidBody("The part %q is not valid JSON of the GraphQL multipart request", name)
	}
	return nil
}

// bodyError translates a failure to read the body: over the cap is 413, anything else (the body
// ended early, the client went away) is a malformed request.
func bodyError(err error, limit int64) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return TooLarge(limit)
	}
	return apperr.InvalidBody("The multipart body ended before it was complete")
}

// writeError answers a refused request the GraphQL way, with the code in extensions.
func writeError(w http.ResponseWriter, err error) {
	e, ok := apperr.As(err)
	if !ok {
		e = apperr.Internal()
	}
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(graphql.Response{Errors: gqlerror.List{{
		Message: e.Message, Extensions: map[string]any{"code": e.Code},
	}}})
}

// pacedBody extends the connection's read deadline each time the body is read, by
// uploadIdleTimeout and never past end: a body must keep arriving, and arrive whole by end.
type pacedBody struct {
	io.ReadCloser
	rc  *http.ResponseController
	end time.Time
}

// Read reads the body after moving the deadline.
func (b *pacedBody) Read(p []byte) (int, error) {
	deadline := time.Now().Add(uploadIdleTimeout)
	if deadline.After(b.end) {
		deadline = b.end
	}
	_ = b.rc.SetReadDeadline(deadline)
	return b.ReadCloser.Read(p)
}

// Limiter bounds each caller's upload requests in flight: a person's, an API key's. Over the
// bound, a request is answered 429 rate_limited before its body is read.
type Limiter struct {
	max      int
	mu       sync.Mutex
	inFlight map[string]int
}

// NewLimiter returns a Limiter allowing each caller perCaller uploads at once.
func NewLimiter(perCaller int) *Limiter {
	return &Limiter{max: perCaller, inFlight: map[string]int{}}
}

// Acquire takes one of the caller's slots, or answers rate_limited; release gives it back.
func (l *Limiter) Acquire(ctx context.Context) (release func(), err error) {
	key := callerKey(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight[key] >= l.max {
		return nil, apperr.New(http.StatusTooManyRequests, apperr.CodeRateLimited,
			fmt.Sprintf("At most %d uploads at once: wait for one to finish", l.max))
	}
	l.inFlight[key]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.inFlight[key]--; l.inFlight[key] <= 0 {
			delete(l.inFlight, key)
		}
	}, nil
}

// callerKey names whose upload a request is: the signed-in person, else the API key, else the
// organization of background work.
func callerKey(ctx context.Context) string {
	v := viewer.FromContext(ctx)
	switch {
	case v == nil:
		return ""
	case v.Person != nil:
		return "person:" + v.Person.UserID
	case v.APIKeyID != "":
		return "key:" + v.APIKeyID
	default:
		return "org:" + v.OrganizationID
	}
}
