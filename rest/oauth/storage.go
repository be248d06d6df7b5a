package oauth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/oauthclient"
	"github.com/podium/podium/ent/oauthgrant"
	"github.com/podium/podium/ent/oauthrequest"
	"github.com/podium/podium/ent/oauthtoken"
	"github.com/podium/podium/ent/schema/viewer"
)

// storage is op.Storage on the ent tables. Every method is system work: the tables hold what
// people granted, across organizations.
type storage struct{ s *Server }

var _ op.Storage = (*storage)(nil)

// errUnknown answers an id, code or token the tables do not hold, or no longer honour.
var errUnknown = errors.New("oauth: unknown, expired or used")

// client is a registered client as op sees it: public (no secret), the code flow only, with
// refresh tokens, and opaque access tokens.
type client struct{ row *ent.OAuthClient }

func (c client) GetID() string                       { return c.row.ID }
func (c client) RedirectURIs() []string              { return c.row.RedirectUris }
func (c client) PostLogoutRedirectURIs() []string    { return nil }
func (c client) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c client) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodNone }
func (c client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c client) LoginURL(id string) string            { return ConsentPath + "?id=" + id }
func (c client) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeBearer }
func (c client) IDTokenLifetime() time.Duration       { return AccessTokenLifetime }
func (c client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c client) ClockSkew() time.Duration             { return 0 }
func (c client) IsScopeAllowed(scope string) bool     { return slices.Contains(Scopes, scope) }
func (c client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c client) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
}

// DevMode lets op accept the http redirect URIs a client registered: registration admits http
// only for loopback addresses (register.go), and the match is still exact.
func (c client) DevMode() bool { return true }

// authRequest is an authorization in progress as op sees it.
type authRequest struct{ row *ent.OAuthRequest }

func (a authRequest) GetID() string         { return a.row.ID }
func (a authRequest) GetACR() string        { return "" }
func (a authRequest) GetAMR() []string      { return nil }
func (a authRequest) GetAudience() []string { return []string{a.row.ClientID} }
func (a authRequest) GetAuthTime() time.Time {
	return a.row.UpdatedAt
}
func (a authRequest) GetClientID() string { return a.row.ClientID }
func (a authRequest) GetCodeChallenge() *oidc.CodeChallenge {
	return &oidc.CodeChallenge{Challenge: a.row.CodeChallenge, Method: oidc.CodeChallengeMethodS256}
}
func (a authRequest) GetNonce() string                   { return a.row.Nonce }
func (a authRequest) GetRedirectURI() string             { return a.row.RedirectURI }
func (a authRequest) GetResponseType() oidc.ResponseType { return oidc.ResponseTypeCode }
func (a authRequest) GetResponseMode() oidc.ResponseMode { return oidc.ResponseModeQuery }

// GetScopes are the scopes granted, and offline_access, which makes op issue a refresh token
// with every access token.
func (a authRequest) GetScopes() []string {
	return append(slices.Clone(a.row.GrantedScopes), oidc.ScopeOfflineAccess)
}
func (a authRequest) GetState() string { return a.row.State }
func (a authRequest) GetSubject() string {
	if a.row.UserID == nil {
		return ""
	}
	return *a.row.UserID
}

// Done reports whether the person consented: the request names their grant.
func (a authRequest) Done() bool { return a.row.UserID != nil && a.row.GrantID != nil }

// refreshRequest is a refresh token presented for a new pair, as op sees it.
type refreshRequest struct {
	token *ent.OAuthToken
	grant *ent.OAuthGrant
}

func (r *refreshRequest) GetAMR() []string          { return nil }
func (r *refreshRequest) GetAudience() []string     { return []string{r.grant.ClientID} }
func (r *refreshRequest) GetAuthTime() time.Time    { return r.grant.CreatedAt }
func (r *refreshRequest) GetClientID() string       { return r.grant.ClientID }
func (r *refreshRequest) GetSubject() string        { return r.grant.UserID }
func (r *refreshRequest) SetCurrentScopes([]string) {}
func (r *refreshRequest) GetScopes() []string {
	return append(slices.Clone(r.grant.Scopes), oidc.ScopeOfflineAccess)
}

// CreateAuthRequest stores an authorization request op has checked (client, exact redirect URI,
// response type). PKCE is Podium's own rule: S256 only, and never without a challenge.
func (st *storage) CreateAuthRequest(ctx context.Context, req *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if req.CodeChallenge == "" {
		return nil, oidc.ErrInvalidRequest().WithDescription("PKCE is required: send code_challenge with code_challenge_method=S256")
	}
	if req.CodeChallengeMethod != oidc.CodeChallengeMethodS256 || len(req.CodeChallenge) > 128 {
		return nil, oidc.ErrInvalidRequest().WithDescription("Only the S256 code_challenge_method is supported")
	}
	var scopes []string
	for _, sc := range req.Scopes {
		if slices.Contains(Scopes, sc) && !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if len(req.State) > 2000 || len(req.Nonce) > 500 {
		return nil, oidc.ErrInvalidRequest().WithDescription("state or nonce is too long")
	}
	ctx = viewer.System(ctx, "oauth: store an authorization request")
	if err := st.s.prune(ctx); err != nil {
		return nil, err
	}
	row, err := st.s.db.Ent.OAuthRequest.Create().SetClientID(req.ClientID).SetRedirectURI(req.RedirectURI).
		SetState(req.State).SetNonce(req.Nonce).SetScopes(scopes).SetCodeChallenge(req.CodeChallenge).
		SetExpiresAt(st.s.now().Add(RequestLifetime)).Save(ctx)
	if err != nil {
		return nil, err
	}
	return authRequest{row}, nil
}

// prune deletes authorization requests and tokens a day past their expiry: an expired code or
// token is refused whether its row is there or not. Refresh tokens are kept until then, used or
// not, so that a copied one revokes its grant for as long as it could have worked. It runs with
// each new authorization request, which is rare enough. ctx must be system work.
func (s *Server) prune(ctx context.Context) error {
	before := s.now().Add(-24 * time.Hour)
	if _, err := s.db.Ent.OAuthRequest.Delete().Where(oauthrequest.ExpiresAtLT(before)).Exec(ctx); err != nil {
		return err
	}
	_, err := s.db.Ent.OAuthToken.Delete().Where(oauthtoken.ExpiresAtLT(before)).Exec(ctx)
	return err
}

// AuthRequestByID returns a request still in progress: not expired, its code not exchanged.
func (st *storage) AuthRequestByID(ctx context.Context, id string) (op.AuthRequest, error) {
	ctx = viewer.System(ctx, "oauth: read an authorization request")
	row, err := st.s.db.Ent.OAuthRequest.Query().Where(oauthrequest.ID(id), oauthrequest.UsedAtIsNil(),
		oauthrequest.ExpiresAtGT(st.s.now())).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, oidc.ErrInvalidRequest().WithDescription("The authorization request is unknown or expired")
	}
	if err != nil {
		return nil, err
	}
	return authRequest{row}, nil
}

// AuthRequestByCode returns the request of a code. A code already exchanged is a copied code:
// the grant it made is revoked, and with it every token of the first exchange.
func (st *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	ctx = viewer.System(ctx, "oauth: exchange a code")
	row, err := st.s.db.Ent.OAuthRequest.Query().Where(oauthrequest.CodeHash(hash(code))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errUnknown
	}
	if err != nil {
		return nil, err
	}
	if row.UsedAt != nil {
		if row.GrantID != nil {
			if err := st.s.revokeGrant(ctx, *row.GrantID); err != nil {
				return nil, err
			}
		}
		return nil, errUnknown
	}
	if !row.ExpiresAt.After(st.s.now()) || row.GrantID == nil {
		return nil, errUnknown
	}
	return authRequest{row}, nil
}

// SaveAuthCode keeps the SHA-256 of the code op made for a request the person consented to.
func (st *storage) SaveAuthCode(ctx context.Context, id, code string) error {
	ctx = viewer.System(ctx, "oauth: keep a code")
	n, err := st.s.db.Ent.OAuthRequest.Update().Where(oauthrequest.ID(id), oauthrequest.CodeHashIsNil(),
		oauthrequest.UsedAtIsNil()).SetCodeHash(hash(code)).Save(ctx)
	if err != nil {
		return err
	}
	if n != 1 {
		// The callback was opened twice: one code per request.
		return oidc.ErrInvalidRequest().WithDescription("This authorization request already has its code")
	}
	return nil
}

// DeleteAuthRequest is called by op after a code exchange; the request was already marked used
// (CreateAccessAndRefreshTokens), and is kept so that a second exchange is recognized.
func (st *storage) DeleteAuthRequest(context.Context, string) error { return nil }

// CreateAccessToken issues an access token without a refresh token; op asks for one only for
// requests without offline_access, which Podium's never are.
func (st *storage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	id, _, exp, err := st.CreateAccessAndRefreshTokens(ctx, req, "")
	return id, exp, err
}

// CreateAccessAndRefreshTokens issues a pair for a code (marking it used) or a refresh token
// (marking it used: rotation). A code or refresh token already used by a concurrent request
// revokes the grant.
func (st *storage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, _ string) (string, string, time.Time, error) {
	ctx = viewer.System(ctx, "oauth: issue tokens")
	now := st.s.now()
	var grantID, clientID string
	switch r := req.(type) {
	case authRequest:
		grantID, clientID = *r.row.GrantID, r.row.ClientID
	case *refreshRequest:
		grantID, clientID = r.grant.ID, r.grant.ClientID
	default:
		return "", "", time.Time{}, oidc.ErrUnsupportedGrantType()
	}
	refresh, err := newRefreshToken()
	if err != nil {
		return "", "", time.Time{}, err
	}
	var accessID string
	exp := now.Add(AccessTokenLifetime)
	reused := false
	err = st.s.db.InTx(ctx, func(ctx context.Context) error {
		tx := dbx.TxFromContext(ctx).Ent()
		var n int
		var err error
		switch r := req.(type) {
		case authRequest:
			n, err = tx.OAuthRequest.Update().Where(oauthrequest.ID(r.row.ID), oauthrequest.UsedAtIsNil()).
				SetUsedAt(now).Save(ctx)
		case *refreshRequest:
			n, err = tx.OAuthToken.Update().Where(oauthtoken.ID(r.token.ID), oauthtoken.UsedAtIsNil(),
				oauthtoken.RevokedAtIsNil()).SetUsedAt(now).Save(ctx)
		}
		if err != nil {
			return err
		}
		if n != 1 {
			reused = true
			return errUnknown
		}
		live, err := tx.OAuthGrant.Query().Where(oauthgrant.ID(grantID), oauthgrant.RevokedAtIsNil()).Exist(ctx)
		if err != nil {
			return err
		}
		if !live {
			return errUnknown
		}
		rt, err := tx.OAuthToken.Create().SetGrantID(grantID).SetKind(oauthtoken.KindRefresh).
			SetHash(hash(refresh)).SetExpiresAt(now.Add(RefreshTokenLifetime)).Save(ctx)
		if err != nil {
			return err
		}
		at, err := tx.OAuthToken.Create().SetGrantID(grantID).SetKind(oauthtoken.KindAccess).
			SetRefreshID(rt.ID).SetExpiresAt(exp).Save(ctx)
		if err != nil {
			return err
		}
		accessID = at.ID
		return tx.OAuthClient.UpdateOneID(clientID).SetLastUsedAt(now).Exec(ctx)
	})
	if reused {
		if err := st.s.revokeGrant(ctx, grantID); err != nil {
			return "", "", time.Time{}, err
		}
		return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription("This code or refresh token was already used: the authorization is revoked")
	}
	if errors.Is(err, errUnknown) {
		return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription("The authorization was revoked")
	}
	if err != nil {
		return "", "", time.Time{}, err
	}
	return accessID, refresh, exp, nil
}

// newRefreshToken is 32 random bytes, URL-safe.
func newRefreshToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "pdr_" + base64.RawURLEncoding.EncodeToString(b), nil
}

// TokenRequestByRefreshToken finds a live refresh token. One already used was copied: the
// grant is revoked, ending the copy's holder and the rightful one alike, who asks the person again.
func (st *storage) TokenRequestByRefreshToken(ctx context.Context, token string) (op.RefreshTokenRequest, error) {
	ctx = viewer.System(ctx, "oauth: read a refresh token")
	row, err := st.s.db.Ent.OAuthToken.Query().Where(oauthtoken.Hash(hash(token)), oauthtoken.KindEQ(oauthtoken.KindRefresh)).
		WithGrant().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errUnknown
	}
	if err != nil {
		return nil, err
	}
	if row.UsedAt != nil {
		if err := st.s.revokeGrant(ctx, row.GrantID); err != nil {
			return nil, err
		}
		return nil, errUnknown
	}
	g := row.Edges.Grant
	if row.RevokedAt != nil || !row.ExpiresAt.After(st.s.now()) || g == nil || g.RevokedAt != nil {
		return nil, errUnknown
	}
	return &refreshRequest{token: row, grant: g}, nil
}

// TerminateSession is OpenID's end_session, which Podium does not serve.
func (st *storage) TerminateSession(context.Context, string, string) error { return nil }

// GetRefreshTokenInfo names the refresh token presented for revocation.
func (st *storage) GetRefreshTokenInfo(ctx context.Context, clientID, token string) (string, string, error) {
	ctx = viewer.System(ctx, "oauth: read a refresh token to revoke")
	row, err := st.s.db.Ent.OAuthToken.Query().Where(oauthtoken.Hash(hash(token)), oauthtoken.KindEQ(oauthtoken.KindRefresh)).
		WithGrant().Only(ctx)
	if ent.IsNotFound(err) {
		return "", "", op.ErrInvalidRefreshToken
	}
	if err != nil {
		return "", "", err
	}
	if row.Edges.Grant == nil || row.Edges.Grant.ClientID != clientID {
		return "", "", op.ErrInvalidRefreshToken
	}
	return row.Edges.Grant.UserID, row.ID, nil
}

// RevokeToken revokes a token (by id: op decrypted the access token, or found the refresh token)
// and its partner: an access token's refresh token and the access tokens issued with it. A token
// unknown, or of another client, is answered as revoked (RFC 7009 §2.2).
func (st *storage) RevokeToken(ctx context.Context, id, userID, clientID string) *oidc.Error {
	if userID == "" {
		return nil
	}
	ctx = viewer.System(ctx, "oauth: revoke a token")
	row, err := st.s.db.Ent.OAuthToken.Query().Where(oauthtoken.ID(id)).WithGrant().Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return oidc.ErrServerError().WithParent(err)
	}
	if row.Edges.Grant == nil || row.Edges.Grant.ClientID != clientID || row.Edges.Grant.UserID != userID {
		return nil
	}
	refreshID := row.ID
	if row.Kind == oauthtoken.KindAccess && row.RefreshID != nil {
		refreshID = *row.RefreshID
	}
	now := st.s.now()
	_, err = st.s.db.Ent.OAuthToken.Update().
		Where(oauthtoken.Or(oauthtoken.ID(row.ID), oauthtoken.ID(refreshID), oauthtoken.RefreshID(refreshID)),
			oauthtoken.RevokedAtIsNil()).
		SetRevokedAt(now).Save(ctx)
	if err != nil {
		return oidc.ErrServerError().WithParent(err)
	}
	return nil
}

// signingKey signs ID tokens: op issues one with every token response.
type signingKey struct{ key ed25519.PrivateKey }

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.EdDSA }
func (k signingKey) Key() any                                    { return k.key }
func (k signingKey) ID() string                                  { return "oauth-signing" }

type publicKey struct{ key ed25519.PublicKey }

func (k publicKey) ID() string                         { return "oauth-signing" }
func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.EdDSA }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return k.key }

func (st *storage) SigningKey(context.Context) (op.SigningKey, error) {
	return signingKey{st.s.signing}, nil
}

func (st *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.EdDSA}, nil
}

func (st *storage) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{st.s.signing.Public().(ed25519.PublicKey)}}, nil
}

// GetClientByClientID loads a registered client.
func (st *storage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	ctx = viewer.System(ctx, "oauth: read a client")
	row, err := st.s.db.Ent.OAuthClient.Query().Where(oauthclient.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errUnknown
	}
	if err != nil {
		return nil, oidc.ErrServerError().WithParent(err)
	}
	return client{row}, nil
}

// AuthorizeClientIDSecret refuses every secret: clients are public.
func (st *storage) AuthorizeClientIDSecret(context.Context, string, string) error {
	return errors.New("oauth: clients have no secret")
}

func (st *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

func (st *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, _, subject, _ string) error {
	info.Subject = subject
	return nil
}

func (st *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("oauth: introspection is not served")
}

func (st *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (st *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("oauth: JWT profile is not served")
}

func (st *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("oauth: JWT profile is not served")
}

func (st *storage) Health(context.Context) error { return nil }
