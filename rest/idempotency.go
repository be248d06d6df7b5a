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

// The statements of a key, for each kind of caller: an API key's records are found by the key's id;
// a person's by their user id in the organization they act for (row-level security narrows the
// rows to it, and the trigger fills organization_id from the session).
var keyedSQL = map[string]keyedStatements{
	"api_key_id": statementsOf("api_key_id", "api_key_id, key"),
	"user_id":    statementsOf("user_id", "user_id, organization_id, key"),
}

// keyedStatements expire a record past its 24 hours, claim a key, read a recorded response and
// record one.
type keyedStatements struct{ expire, claim, recorded, record string }

// statementsOf are the statements of the callers named by column, unique by conflict.
func statementsOf(column, conflict string) keyedStatements {
	return keyedStatements{
		expire: `DELETE FROM idempotency_records WHERE ` + column + ` = $1 AND key = $2 AND ` + schema.IdempotencyExpired,
		claim: `
INSERT INTO idempotency_records (id, created_at, updated_at, key, request_hash, status, response, ` + column + `)
VALUES ($1, now(), now(), $2, $3, 0, '', $4)
ON CONFLICT (` + conflict + `) DO NOTHING`,
		recorded: `SELECT request_hash, status, response FROM idempotency_records WHERE ` + column + ` = $1 AND key = $2`,
		record:   `UPDATE idempotency_records SET status = $3, response = $4, updated_at = now() WHERE ` + column + ` = $1 AND key = $2`,
	}
}

// keyedWrite is a write made with an Idempotency-Key: its caller (the column naming it and its id),
// the key and the request's hash.
type keyedWrite struct {
	column, caller, key, hash string
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
	k := &keyedWrite{column: "api_key_id", caller: v.APIKeyID, key: key}
	if v.Person != nil {
		if v.OrganizationID == "" {
			// A person of no organization (a reviewer, a speaker) changes only their own records,
			// where repeating a change changes nothing more; their keys have no organization to be
			// kept in.
			return nil, errNoKeyWithoutOrganization
		}
		k.column, k.caller = "user_id", v.Person.UserID
	}
	h := sha256.New()
	h.Write([]byte(q.Method + " " + q.URL.Path + "\n"))
	h.Write(q.body)
	k.hash = hex.EncodeToString(h.Sum(nil))
	return k, nil
}

// errNoKeyWithoutOrganization refuses an Idempotency-Key sent for a person who acts for no
// organization.
var errNoKeyWithoutOrganization = apperr.Invalid("Idempotency-Key is kept for API keys and for people acting for an " +
	"organization: send this change without it (repeating it changes nothing more)")

// claim records the key in the transaction of ctx. It returns the recorded response when the
// same request was made before, or nil when this one is the first and goes ahead.
func (k *keyedWrite) claim(ctx context.Context) (*response, error) {
	tx := dbx.TxFromContext(ctx).PGX()
	sql := keyedSQL[k.column]
	if _, err := tx.Exec(ctx, sql.expire, k.caller, k.key); err != nil {
		return nil, err
	}
	tag, err := tx.Exec(ctx, sql.claim, pid.New("idem"), k.key, k.hash, k.caller)
	if err != nil {
		return nil, err
	}
	if tag.RowsAffected() == 1 {
		return nil, nil
	}
	var hash string
	rec := &response{}
	if err := tx.QueryRow(ctx, sql.recorded, k.caller, k.key).Scan(&hash, &rec.status, &rec.body); err != nil {
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
	_, err := dbx.TxFromContext(ctx).PGX().Exec(ctx, keyedSQL[k.column].record, k.caller, k.key, res.status, res.body)
	return err
}
