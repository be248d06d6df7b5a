package oauth

import (
	"context"
	"net/http"
	"strings"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/oauthclient"
	"github.com/podium/podium/ent/oauthgrant"
	"github.com/podium/podium/ent/oauthtoken"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

var _ access.TokenVerifier = (*Server)(nil)

// ErrInvalidToken answers an access token unknown, expired or revoked, or whose grant was
// revoked: 401 with the code of a bad API key, which is what clients already handle.
var ErrInvalidToken = apperr.New(http.StatusUnauthorized, apperr.CodeInvalidAPIKey,
	"This access token is unknown, expired or revoked: refresh it, or connect the application again")

// VerifyAccessToken implements access.TokenVerifier: the token names its row (op encrypts
// "row id:user id" with the server's key), and every call reads the row and its grant, so that a
// revoked grant ends every token of it on the next request.
func (s *Server) VerifyAccessToken(ctx context.Context, token string) (*viewer.Person, *viewer.Client, error) {
	p, err := s.openProvider(ctx)
	if err != nil {
		return nil, nil, err
	}
	plain, err := p.Crypto().Decrypt(token)
	if err != nil {
		// Not a token of this server: answered as any unknown key is.
		return nil, nil, access.ErrInvalidKey
	}
	// A forged value decrypts to noise (the cipher authenticates nothing): only two well-formed
	// ids are looked up, so that noise answers 401 like any unknown token, never reaching the query.
	id, userID, ok := strings.Cut(plain, ":")
	if !ok || !pid.Plausible(id) || !pid.Plausible(userID) {
		return nil, nil, ErrInvalidToken
	}
	sys := viewer.System(ctx, "oauth: check an access token, whose person spans organizations")
	now := s.now()
	row, err := s.db.Ent.OAuthToken.Query().
		Where(oauthtoken.ID(id), oauthtoken.KindEQ(oauthtoken.KindAccess), oauthtoken.RevokedAtIsNil(),
			oauthtoken.ExpiresAtGT(now),
			oauthtoken.HasGrantWith(oauthgrant.RevokedAtIsNil(), oauthgrant.UserID(userID))).
		WithGrant(func(q *ent.OAuthGrantQuery) { q.WithClient() }).Only(sys)
	if ent.IsNotFound(err) {
		return nil, nil, ErrInvalidToken
	}
	if err != nil {
		return nil, nil, err
	}
	g := row.Edges.Grant
	person, err := s.people.Person(ctx, g.UserID, "")
	if err != nil {
		if _, ok := apperr.As(err); ok {
			return nil, nil, ErrInvalidToken
		}
		return nil, nil, err
	}
	s.touch(sys, g)
	c := &viewer.Client{ID: g.ClientID, GrantID: g.ID, Scopes: g.Scopes}
	if g.Edges.Client != nil {
		c.Name = g.Edges.Client.Name
	}
	return person, c, nil
}

// touch records that the grant was used, at most once per touchEvery, and never fails the request.
func (s *Server) touch(ctx context.Context, g *ent.OAuthGrant) {
	now := s.now()
	s.touchMu.Lock()
	last, ok := s.touched[g.ID]
	due := !ok || now.Sub(last) >= touchEvery
	if due {
		s.touched[g.ID] = now
	}
	s.touchMu.Unlock()
	if !due {
		return
	}
	ctx = context.WithoutCancel(ctx)
	// The condition keeps several server processes to one write a minute as well.
	_ = s.db.Ent.OAuthGrant.Update().
		Where(oauthgrant.ID(g.ID), oauthgrant.Or(oauthgrant.LastUsedAtIsNil(), oauthgrant.LastUsedAtLT(now.Add(-touchEvery)))).
		SetLastUsedAt(now).Exec(ctx)
	_ = s.db.Ent.OAuthClient.Update().
		Where(oauthclient.ID(g.ClientID), oauthclient.Or(oauthclient.LastUsedAtIsNil(), oauthclient.LastUsedAtLT(now.Add(-touchEvery)))).
		SetLastUsedAt(now).Exec(ctx)
}
