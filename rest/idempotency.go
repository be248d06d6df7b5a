package rest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// Idempotency (docs/rest-api.md §1, ext): a write sent with an Idempotency-Key header is recorded with
// its response in the write's own transaction. The same key with the same request within 24 hours
// answers the recorded response and writes nothing — no second session, no second email; the same
// key with another request is refused with 422 idempotency_key_reused. A write that fails records
// nothing, so its retry runs anew. Two requests racing with one key are serialized by the unique
// index: the second waits for the first to commit, then answers its response.

// IdempotencyHeader is the request header carrying the client's key.
const IdempotencyHeader = "Idempotency-Key"

// ReplayedHeader marks a response answered from an earlier request.
const ReplayedHeader = "Idempotent-Replayed"

const (
	expireKeySQL = `DELETE FROM idempotency_records WHERE api_key_id = $1 AND key = $2 AND ` + schema.IdempotencyExpired
	claimKeySQL  = `
INSERT INTO idempotency_records (id, created_at, updated_at, key, request_hash, status, response, api_key_id)
VALUES ($1, now(), now(), $2, $3, 0, '', $4)
ON CONFLICT (api_key_id, key) DO NOTHING`
	recordedSQL = `SELECT request_hash, status, response FROM idempotency_records WHERE api_key_id = $1 AND key = $2`
	recordSQL   = `UPDATE idempotency_records SET status = $3, response = $4, updated_at = now() WHERE api_key_id = $1 AND key = $2`
)

// keyedWrite is a write made with an Idempotency-Key.
type keyedWrite struct {
	apiKeyID, key, hash string
}

// response is a rendered response: what is written, and recorded for replays (writes answer
// JSON, so a recorded response needs no content type).
type response struct {
	status int
	body   []byte
	// contentType is the body's type when it is not JSON.
	contentType string
	// header holds further headers, such as the validators of the public feeds.
	header http.Header
	// stream writes the whole response itself (a file download); reads only, never recorded.
	stream func(http.ResponseWriter)
}

// keyedWriteOf reads the Idempotency-Key of a write, if any.
func keyedWriteOf(q *request) (*keyedWrite, error) {
	key := q.Header.Get(IdempotencyHeader)
	if key == "" || q.Method == http.MethodGet || q.route.shownOnce() {
		return nil, nil
	}
	if len(key) > 255 {
		return nil, apperr.Invalid("Idempotency-Key must be 1 to 255 visible characters")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return nil, apperr.Invalid("Idempotency-Key must be 1 to 255 visible characters")
		}
	}
	v := viewer.FromContext(q.Context())
	if v == nil {
		return nil, nil
	}
	h := sha256.New()
	h.Write([]byte(q.Method + " " + q.URL.Path + "\n"))
	h.Write(q.body)
	return &keyedWrite{apiKeyID: v.APIKeyID, key: key, hash: hex.EncodeToString(h.Sum(nil))}, nil
}

// claim records the key in the transaction of ctx. It returns the recorded response when the
// same request was made before, or nil when this one is the first and goes ahead.
func (k *keyedWrite) claim(ctx context.Context) (*response, error) {
	tx := dbx.TxFromContext(ctx).PGX()
	if _, err := tx.Exec(ctx, expireKeySQL, k.apiKeyID, k.key); err != nil {
		return nil, err
	}
	tag, err := tx.Exec(ctx, claimKeySQL, pid.New("idem"), k.key, k.hash, k.apiKeyID)
	if err != nil {
		return nil, err
	}
	if tag.RowsAffected() == 1 {
		return nil, nil
	}
	var hash string
	rec := &response{}
	if err := tx.QueryRow(ctx, recordedSQL, k.apiKeyID, k.key).Scan(&hash, &rec.status, &rec.body); err != nil {
		return nil, err
	}
	if hash != k.hash {
		return nil, apperr.New(http.StatusUnprocessableEntity, apperr.CodeIdempotencyKeyReused,
			"This Idempotency-Key was used for another request")
	}
	return rec, nil
}

// record stores the response of the first request.
func (k *keyedWrite) record(ctx context.Context, res *response) error {
	_, err := dbx.TxFromContext(ctx).PGX().Exec(ctx, recordSQL, k.apiKeyID, k.key, res.status, res.body)
	return err
}
