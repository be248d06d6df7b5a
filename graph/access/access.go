package access

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/apikey"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// touchEvery bounds how often a key's last_used_at is written: at most once a minute per key, so
// a busy integration does not turn every read into a write.
const touchEvery = time.Minute

// Authenticator turns an Authorization header into a Viewer.
type Authenticator struct {
	client *ent.Client
	pool   *pgxpool.Pool
	now    func() time.Time

	mu      sync.Mutex
	touched map[string]time.Time // key id → when this process last wrote last_used_at

	// Tokens checks bearer tokens that are not API keys: the OAuth access tokens of applications
	// acting for people (docs/agents.md). Nil: only API keys are accepted.
	Tokens TokenVerifier
}

// TokenVerifier checks an OAuth access token. It answers the person the token acts for, with the
// application and its grant, or ErrInvalidKey for a token unknown, expired or revoked. The person's
// organization scope is for the caller to choose (PersonViewer).
type TokenVerifier interface {
	VerifyAccessToken(ctx context.Context, token string) (*viewer.Person, *viewer.Client, error)
}

// NewAuthenticator returns an Authenticator finding keys on pool and recording their use through
// client.
func NewAuthenticator(client *ent.Client, pool *pgxpool.Pool) *Authenticator {
	return &Authenticator{client: client, pool: pool, now: time.Now, touched: make(map[string]time.Time)}
}

// Errors of the contract for a missing or bad key.
var (
	ErrMissingKey = apperr.New(http.StatusUnauthorized, apperr.CodeMissingAPIKey,
		"Provide an API key: Authorization: Bearer pdm_… (create one with `podium keys create --org NAME`)")
	ErrInvalidKey = apperr.New(http.StatusUnauthorized, apperr.CodeInvalidAPIKey,
		"This API key is unknown or has been revoked")
)

// Authenticate checks the value of an Authorization header. Every call reads the key's row, so
// a revocation takes effect on the next request.
func (a *Authenticator) Authenticate(ctx context.Context, header string) (*viewer.Viewer, error) {
	return a.AuthenticateFor(ctx, header, "")
}

// AuthenticateFor is Authenticate where an OAuth access token's person acts for the organization
// org (a client choosing among several; "" for the first they joined). An API key acts for its own.
func (a *Authenticator) AuthenticateFor(ctx context.Context, header, org string) (*viewer.Viewer, error) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(header), " ")
	token = strings.TrimSpace(token)
	if header == "" || token == "" {
		return nil, ErrMissingKey
	}
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, ErrInvalidKey
	}
	if !WellFormed(token) {
		if a.Tokens == nil || strings.HasPrefix(token, KeyPrefix) {
			return nil, ErrInvalidKey
		}
		p, c, err := a.Tokens.VerifyAccessToken(ctx, token)
		if err != nil {
			return nil, err
		}
		v := PersonViewer(p, org)
		v.Client = c
		return v, nil
	}
	// Which organization the caller belongs to is what the key says: the lookup spans them all.
	// It goes through the function podium_api_key, which admits every organization's keys for its
	// own statement, so the connection need not be told "system" first and its organization again
	// afterwards (viewer.AnyScope): one round trip instead of three.
	// An expired key is not found, as a revoked one is not.
	var key struct {
		id, org, name string
		scopes        []string
		event         *string
		version       *string
	}
	err := a.pool.QueryRow(viewer.AnyScope(ctx), `SELECT id, organization_id, name, scopes, event_id, api_version FROM podium_api_key($1)`,
		HashKey(token)).Scan(&key.id, &key.org, &key.name, &key.scopes, &key.event, &key.version)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrInvalidKey
	}
	if err != nil {
		return nil, fmt.Errorf("access: look up key: %w", err)
	}
	a.touch(viewer.WithOrganization(ctx, key.org), key.id)
	v := &viewer.Viewer{OrganizationID: key.org, APIKeyID: key.id, APIKeyName: key.name, APIKeyScopes: key.scopes}
	if key.event != nil {
		v.APIKeyEventID = *key.event
	}
	if key.version != nil {
		v.APIKeyVersion = *key.version
	}
	return v, nil
}

// touch records that the key was used, at most once per touchEvery, and never fails the request.
func (a *Authenticator) touch(ctx context.Context, id string) {
	now := a.now()
	a.mu.Lock()
	last, ok := a.touched[id]
	due := !ok || now.Sub(last) >= touchEvery
	if due {
		a.touched[id] = now
	}
	a.mu.Unlock()
	if !due {
		return
	}
	// The condition keeps several server processes to one write a minute as well.
	_, _ = a.client.APIKey.Update().
		Where(apikey.ID(id), apikey.Or(apikey.LastUsedAtIsNil(), apikey.LastUsedAtLT(now.Add(-touchEvery)))).
		SetLastUsedAt(now).
		Save(context.WithoutCancel(ctx))
}

// eventByID reads every column of an event by id within an organization. Every operation on an
// event starts with it, so it is written once here rather than built by ent's query builder on
// each call, which costs more CPU than the statement (docs/performance.md).
var eventByID = func() string {
	cols := make([]string, len(event.Columns))
	for i, c := range event.Columns {
		cols[i] = `"` + c + `"`
	}
	return "SELECT " + strings.Join(cols, ", ") + ` FROM "events" WHERE "id" = $1 AND "organization_id" = $2`
}()

// Event returns the event id of the caller's organization. An event of another organization
// and an id that does not exist get the same 403, so other tenants' ids cannot be probed; so does
// any other event than its own for an API key confined to one event.
func Event(ctx context.Context, client *ent.Client, id string) (*ent.Event, error) {
	v := viewer.FromContext(ctx)
	if v == nil || !pid.Plausible(id) || (v.APIKeyEventID != "" && id != v.APIKeyEventID) {
		return nil, apperr.EventForbidden()
	}
	ev, err := client.Event.ReadOne(ctx, eventByID, id, v.OrganizationID)
	if ent.IsNotFound(err) {
		return nil, apperr.EventForbidden()
	}
	if err != nil {
		return nil, err
	}
	return ev, nil
}

// Viewer returns the caller of ctx; operations only run for authenticated callers, so a missing
// viewer is answered as a missing key.
func Viewer(ctx context.Context) (*viewer.Viewer, error) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return nil, ErrMissingKey
	}
	return v, nil
}
