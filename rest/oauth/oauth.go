// Package oauth is Podium's OAuth 2.1 authorization server (docs/agents.md): an application — an
// assistant, a script on a laptop — registers itself, a person signed in to Podium grants it
// scopes on the consent page, and it calls the REST and GraphQL APIs as that person, bound by
// their roles and by the scopes they granted.
//
// The protocol is zitadel/oidc's OpenID provider (package op) over the ent tables oauth_clients,
// oauth_requests, oauth_grants and oauth_tokens (storage.go). Podium adds what the protocol
// leaves open: public clients only, proving themselves with PKCE S256; dynamic registration
// bounded per network (register.go); opaque access tokens of an hour and refresh tokens of thirty
// days, rotated on every use, a reused one revoking the whole grant (storage.go); and the check of
// every API call's token against its grant (verify.go), so that revoking a grant ends it at once.
//
//	GET  /.well-known/oauth-authorization-server  RFC 8414 metadata
//	GET  /.well-known/openid-configuration        the same, as OpenID discovery
//	POST /oauth/register                          RFC 7591 registration
//	GET  /oauth/authorize                         the authorization request → the consent page
//	GET  /oauth/authorize/callback                after consent: the code, to the client
//	POST /oauth/token                             code and refresh grants
//	POST /oauth/revoke                            RFC 7009
//	GET  /oauth/keys                              the ID tokens' public key
//
// The consent page itself is rest/web/consent.go: it calls Consent, Allow and Deny.
package oauth

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/rs/cors"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/jobs"
)

// Lifetimes and bounds of what the server issues.
const (
	// AccessTokenLifetime is short: an access token cannot be rotated, only expire.
	AccessTokenLifetime = time.Hour
	// RefreshTokenLifetime bounds a connection left unused: an assistant used every month keeps
	// working, one forgotten for longer asks the person again.
	RefreshTokenLifetime = 30 * 24 * time.Hour
	// RequestLifetime bounds an authorization from request to code exchange: the person reads
	// the consent page within it.
	RequestLifetime = 10 * time.Minute
	// unusedClientLifetime is how long a client never authorized is kept.
	unusedClientLifetime = 24 * time.Hour
	// touchEvery bounds how often a grant's last_used_at is written.
	touchEvery = time.Minute
)

// Scopes are the scopes a grant may hold, those of API keys (graph/access/scopes.go).
var Scopes = access.ScopeNames(access.Scopes)

// Paths of the server's endpoints.
const (
	AuthorizePath    = "/oauth/authorize"
	TokenPath        = "/oauth/token"
	RevokePath       = "/oauth/revoke"
	KeysPath         = "/oauth/keys"
	RegisterPath     = "/oauth/register"
	ConsentPath      = "/oauth/consent"
	callbackPath     = AuthorizePath + "/callback"
	metadataPath     = "/.well-known/oauth-authorization-server"
	openIDConfigPath = "/.well-known/openid-configuration"
)

// Opts configure New.
type Opts struct {
	DB *dbx.DB
	// People load the person a token acts for, with their roles.
	People *access.People
	// Issuer is PUBLIC_URL: the server's identifier and the base of every endpoint it names.
	Issuer string
	// RegistrationsPerHour bounds the registrations from one network (an IPv4 /24, an IPv6 /56)
	// in an hour; zero means 20.
	RegistrationsPerHour int
	Log                  *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server is the authorization server. Its keys are read from server_keys on first use, so that
// building it needs no database round trip and a database down at start does not disable it.
type Server struct {
	db     *dbx.DB
	people *access.People
	issuer string
	perNet int
	log    *slog.Logger
	now    func() time.Time

	mu       sync.Mutex
	provider *op.Provider
	signing  ed25519.PrivateKey

	touchMu sync.Mutex
	touched map[string]time.Time // grant id → when this process last wrote last_used_at
}

// New returns the server of opts.
func New(opts Opts) *Server {
	s := &Server{db: opts.DB, people: opts.People, issuer: strings.TrimRight(opts.Issuer, "/"),
		perNet: opts.RegistrationsPerHour, log: opts.Log, now: opts.Now, touched: map[string]time.Time{}}
	if s.perNet == 0 {
		s.perNet = 20
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s
}

// Mount adds the server's endpoints to r. Only these paths reach the provider: its other
// endpoints (userinfo, introspection, end_session, device authorization) are not served.
func (s *Server) Mount(r chi.Router) {
	r.Get(metadataPath, s.metadata)
	r.Get(openIDConfigPath, s.metadata)
	r.Post(RegisterPath, s.register)
	for _, p := range []string{AuthorizePath, callbackPath} {
		r.Get(p, s.serveProvider)
		r.Post(p, s.serveProvider)
	}
	r.Post(TokenPath, s.serveProvider)
	r.Post(RevokePath, s.serveProvider)
	r.Get(KeysPath, s.serveProvider)
}

// serveProvider hands the request to op's router.
func (s *Server) serveProvider(w http.ResponseWriter, r *http.Request) {
	p, err := s.openProvider(r.Context())
	if err != nil {
		s.log.ErrorContext(r.Context(), "oauth: provider unavailable", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable",
			"error_description": "The authorization server cannot reach its database; try again in a moment"})
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == AuthorizePath {
		// A client that names no scope (many take scopes_supported as a hint only) asks for
		// read, which every grant holds: op would refuse the request instead.
		if q := r.URL.Query(); strings.TrimSpace(q.Get("scope")) == "" {
			q.Set("scope", "read")
			r.URL.RawQuery = q.Encode()
		}
	}
	p.ServeHTTP(w, r)
}

// openProvider returns the provider, made on first success: its keys are the server's keys
// "oauth-crypto" (which encrypts access tokens and codes) and "oauth-signing" (the seed of the
// Ed25519 key signing ID tokens), shared by every process so that each accepts the others' tokens.
func (s *Server) openProvider(ctx context.Context) (*op.Provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provider != nil {
		return s.provider, nil
	}
	ctx = viewer.System(ctx, "oauth: the server's keys")
	cryptoKey, err := jobs.ServerKey(ctx, s.db.System, "oauth-crypto")
	if err != nil {
		return nil, err
	}
	seed, err := jobs.ServerKey(ctx, s.db.System, "oauth-signing")
	if err != nil {
		return nil, err
	}
	if len(cryptoKey) != 32 || len(seed) != ed25519.SeedSize {
		return nil, errors.New("oauth: server keys of the wrong size")
	}
	cfg := &op.Config{
		CodeMethodS256:        true,
		GrantTypeRefreshToken: true,
		SupportedScopes:       append([]string{"openid", "offline_access"}, Scopes...),
	}
	copy(cfg.CryptoKey[:], cryptoKey)
	cfg.CryptoKeyId = "oauth-crypto"
	s.signing = ed25519.NewKeyFromSeed(seed)
	opts := []op.Option{op.WithCustomEndpoints(op.NewEndpoint(AuthorizePath), op.NewEndpoint(TokenPath),
		op.NewEndpoint("/oauth/userinfo"), op.NewEndpoint(RevokePath), op.NewEndpoint("/oauth/end_session"),
		op.NewEndpoint(KeysPath)),
		// Browser clients call the token endpoint from their own origin, without cookies.
		op.WithCORSOptions(&cors.Options{AllowedOrigins: []string{"*"}, AllowedMethods: []string{http.MethodGet, http.MethodPost},
			AllowedHeaders: []string{"Authorization", "Content-Type"}})}
	if strings.HasPrefix(s.issuer, "http://") {
		opts = append(opts, op.WithAllowInsecure())
	}
	p, err := op.NewProvider(cfg, &storage{s: s}, op.StaticIssuer(s.issuer), opts...)
	if err != nil {
		return nil, fmt.Errorf("oauth: provider: %w", err)
	}
	s.provider = p
	return p, nil
}

// metadata serves RFC 8414's authorization server metadata, and the same document as OpenID
// discovery: what a client needs to register and to authorize.
func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                     s.issuer,
		"authorization_endpoint":                     s.issuer + AuthorizePath,
		"token_endpoint":                             s.issuer + TokenPath,
		"registration_endpoint":                      s.issuer + RegisterPath,
		"revocation_endpoint":                        s.issuer + RevokePath,
		"jwks_uri":                                   s.issuer + KeysPath,
		"scopes_supported":                           Scopes,
		"response_types_supported":                   []string{"code"},
		"response_modes_supported":                   []string{"query"},
		"grant_types_supported":                      []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":           []string{"S256"},
		"token_endpoint_auth_methods_supported":      []string{"none"},
		"revocation_endpoint_auth_methods_supported": []string{"none"},
		"subject_types_supported":                    []string{"public"},
		"id_token_signing_alg_values_supported":      []string{"EdDSA"},
		"service_documentation":                      s.issuer + "/api/v1/",
	})
}

// hash is the hex SHA-256 of a code or refresh token: what is kept of it.
func hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
