package files

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/jobs"
)

// DefaultMaxBytes is the upload limit unless PODIUM_UPLOAD_LIMIT_MB says otherwise.
const DefaultMaxBytes = 50 << 20

// SignedURLLifetime is how long a signed download URL works.
const SignedURLLifetime = 15 * time.Minute

// Service is the file store as operations use it: checks, storage, cleanup and downloads.
type Service struct {
	Store Store
	// MaxBytes is the largest file accepted; DefaultMaxBytes when 0.
	MaxBytes int64
	// TempDir holds uploads while a request is read (see Transport); the system's when "".
	TempDir string
	// DB checks whether a row points at a key (Settle).
	DB *dbx.DB
	// Jobs queues the deletion of objects no row points at; set once River's client exists.
	Jobs *river.Client[pgx.Tx]
	// PublicURL prefixes signed URLs; relative URLs when "".
	PublicURL string
	Log       *slog.Logger

	signKey []byte
}

// NewService returns the service on store. signKey signs download URLs; when empty a random one
// is made, and URLs signed by this process work only in it (docs/files.md).
func NewService(store Store, db *dbx.DB, signKey string) *Service {
	key := []byte(signKey)
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	return &Service{Store: store, DB: db, signKey: key, Log: slog.Default()}
}

// Limit returns the upload limit in bytes.
func (s *Service) Limit() int64 {
	if s.MaxBytes > 0 {
		return s.MaxBytes
	}
	return DefaultMaxBytes
}

// Upload is a file as received: its name as the client sent it, its bytes and their count.
type Upload struct {
	Name string
	File io.Reader
	Size int64
}

// Rules narrow what one upload accepts beyond its Use.
type Rules struct {
	// MaxBytes is a smaller limit than the service's (a requirement's max_size_mb); 0 for none.
	MaxBytes int64
	// Extensions are the only extensions accepted (a requirement's accept_types); nil for any of
	// the use's.
	Extensions []string
}

// Stored is a stored file, as its row records it.
type Stored struct {
	Key         string
	Name        string
	ContentType string
	Size        int64
}

// Put checks an upload and stores it for the organization of ctx, under a fresh key. It must run
// inside Track: the key is noted there, so that Settle can remove it if no row ends up pointing
// at it. Refusals are apperr errors: 413 payload_too_large over the limit, 400 invalid_input for
// an empty file or a type that is not accepted or that the bytes contradict.
func (s *Service) Put(ctx context.Context, use Use, up Upload, rules Rules) (*Stored, error) {
	if up.File == nil {
		return nil, invalid("Choose a file to upload")
	}
	t, _ := ctx.Value(trackerKey{}).(*Tracker)
	if t == nil {
		return nil, errors.New("files: Put outside Track")
	}
	org := viewer.OrganizationID(ctx)
	if !validOrg(org) {
		return nil, viewer.ErrNoScope
	}
	limit := s.Limit()
	if rules.MaxBytes > 0 && rules.MaxBytes < limit {
		limit = rules.MaxBytes
	}
	if up.Size <= 0 {
		return nil, invalid("The file is empty")
	}
	if up.Size > limit {
		return nil, TooLarge(limit)
	}
	name := SanitizeName(up.Name)
	head, body, err := readHead(up.File)
	if err != nil {
		return nil, err
	}
	if int64(len(head)) < min(up.Size, sniffLen) {
		return nil, invalid("The file ended before its stated size")
	}
	contentType, err := contentTypeOf(use, name, head, rules.Extensions)
	if err != nil {
		return nil, err
	}
	key := NewKey(org)
	t.add(key)
	if err := s.Store.Put(ctx, key, body, up.Size, contentType); err != nil {
		return nil, err
	}
	return &Stored{Key: key, Name: name, ContentType: contentType, Size: up.Size}, nil
}

// TooLarge is the refusal of a file over limit bytes.
func TooLarge(limit int64) *apperr.Error {
	return apperr.New(http.StatusRequestEntityTooLarge, apperr.CodePayloadTooLarge,
		fmt.Sprintf("The file is larger than the limit of %s", mebibytes(limit)))
}

func mebibytes(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func invalid(format string, args ...any) *apperr.Error { return apperr.Invalid(format, args...) }

// Tracker notes the keys stored during one request, for Settle.
type Tracker struct {
	mu   sync.Mutex
	keys []string
}

type trackerKey struct{}

func (t *Tracker) add(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keys = append(t.keys, key)
}

// Track returns ctx with a tracker for the keys Put stores. Call Settle with it once the
// request's transaction has ended.
func Track(ctx context.Context) (context.Context, *Tracker) {
	t := &Tracker{}
	return context.WithValue(ctx, trackerKey{}, t), t
}

// Settle queues the deletion of every key stored under t that no row points at now that the
// transaction has ended: a rolled-back change leaves no object behind. Should queuing fail, the
// object is deleted at once; when even the check fails, the sweep removes it later.
func (s *Service) Settle(ctx context.Context, t *Tracker) {
	t.mu.Lock()
	keys := t.keys
	t.keys = nil
	t.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	for _, key := range keys {
		org, _, _ := ParseKey(key)
		scoped := viewer.WithOrganization(ctx, org)
		used, err := jobs.FileReferenced(scoped, s.DB.Pool, key)
		if err != nil {
			// Unknown whether the change committed: the sweep decides later, with the same check.
			s.Log.WarnContext(ctx, "files: upload left for the sweep", "key", key, "err", err)
			continue
		}
		if used {
			continue
		}
		if s.Jobs != nil {
			if _, err = s.Jobs.Insert(scoped, jobs.DeleteFileArgs{OrganizationID: org, Key: key}, nil); err == nil {
				continue
			}
			s.Log.WarnContext(ctx, "files: could not queue the deletion of an unused upload; deleting it now", "key", key, "err", err)
		}
		if err := s.Store.Delete(ctx, key); err != nil {
			s.Log.ErrorContext(ctx, "files: unused upload left for the sweep", "key", key, "err", err)
		}
	}
}

// DeleteLater queues the deletion of key in the transaction of ctx: the object goes once the
// change that stopped pointing at it has committed, and stays if it rolls back. A nil key does
// nothing.
func (s *Service) DeleteLater(ctx context.Context, key *string) error {
	if key == nil {
		return nil
	}
	org, _, ok := ParseKey(*key)
	if !ok {
		return nil // a key no upload made (recorded through the API): there is no object
	}
	tx := dbx.TxFromContext(ctx)
	if tx == nil || s.Jobs == nil {
		return errors.New("files: DeleteLater outside a transaction")
	}
	if _, err := s.Jobs.InsertTx(ctx, tx.PGX(), jobs.DeleteFileArgs{OrganizationID: org, Key: *key}, nil); err != nil {
		return fmt.Errorf("files: queue deletion: %w", err)
	}
	return nil
}

// SignedURL returns a URL that downloads key for SignedURLLifetime without credentials.
func (s *Service) SignedURL(key string) string {
	org, id, ok := ParseKey(key)
	if !ok {
		return ""
	}
	expires := strconv.FormatInt(time.Now().Add(SignedURLLifetime).Unix(), 10)
	q := url.Values{"expires": {expires}, "signature": {s.sign(key, expires)}}
	return s.PublicURL + "/files/" + org + "/" + id + "?" + q.Encode()
}

func (s *Service) sign(key, expires string) string {
	m := hmac.New(sha256.New, s.signKey)
	m.Write([]byte(key + "\n" + expires))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// VerifySigned returns the key a signed URL names, or a 403 when the signature is wrong or has
// expired.
func (s *Service) VerifySigned(org, fileID, expires, signature string) (string, error) {
	key := Key(org, fileID)
	refused := apperr.Forbidden("This download link is not valid or has expired")
	if key == "" {
		return "", refused
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || time.Now().Unix() > exp {
		return "", refused
	}
	if !hmac.Equal([]byte(signature), []byte(s.sign(key, expires))) {
		return "", refused
	}
	return key, nil
}

// Serve streams obj as a download: its stored content type, its length, a sanitised attachment
// name, nosniff and a sandboxing CSP, with Range and conditional requests (http.ServeContent).
// obj is closed.
func Serve(w http.ResponseWriter, r *http.Request, obj Object, name, contentType string) {
	defer func() { _ = obj.Close() }()
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", Disposition(name))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	// no-transform: the bytes are served as stored, never compressed on the way (Range and
	// Content-Length refer to them).
	h.Set("Cache-Control", "private, no-transform")
	http.ServeContent(w, r, "", obj.Modified(), obj)
}

// Disposition is the Content-Disposition of a download named name: an ASCII fallback and the
// UTF-8 name (RFC 6266).
func Disposition(name string) string {
	name = SanitizeName(name)
	ascii := make([]byte, 0, len(name))
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' {
			ascii = append(ascii, '_')
			continue
		}
		ascii = append(ascii, byte(r))
	}
	return `attachment; filename="` + string(ascii) + `"; filename*=UTF-8''` + url.PathEscape(name)
}
