package oauth

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/oauthgrant"
	"github.com/podium/podium/ent/oauthrequest"
	"github.com/podium/podium/ent/oauthtoken"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// ErrNoRequest answers a consent for an authorization request that is unknown, expired or
// already answered.
var ErrNoRequest = apperr.New(http.StatusNotFound, apperr.CodeNotFound,
	"This authorization request is unknown, expired or already answered: start again from the application")

// ConsentRequest is what the consent page shows of an authorization request.
type ConsentRequest struct {
	ID string
	// ClientName and ClientURI are what the client registered with: its own claim, unchecked.
	ClientName, ClientURI string
	// RedirectHost is where the answer goes: the host of the redirect URI; RedirectOrigin its
	// scheme and host, which the page's form may lead to.
	RedirectHost, RedirectOrigin string
	// Scopes are the scopes asked for (read, write, send_mail).
	Scopes []string
}

// Consent returns the authorization request id for the consent page.
func (s *Server) Consent(ctx context.Context, id string) (*ConsentRequest, error) {
	row, err := s.openRequest(viewer.System(ctx, "oauth: show an authorization request"), s.db.Ent, id)
	if err != nil {
		return nil, err
	}
	c, err := s.db.Ent.OAuthClient.Get(viewer.System(ctx, "oauth: show a client"), row.ClientID)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(row.RedirectURI)
	if err != nil {
		return nil, err
	}
	return &ConsentRequest{ID: row.ID, ClientName: c.Name, ClientURI: c.URI, RedirectHost: u.Host, RedirectOrigin: u.Scheme + "://" + u.Host, Scopes: row.Scopes}, nil
}

// openRequest reads a request still waiting for consent.
func (s *Server) openRequest(ctx context.Context, c *ent.Client, id string) (*ent.OAuthRequest, error) {
	row, err := c.OAuthRequest.Query().Where(oauthrequest.ID(id), oauthrequest.UsedAtIsNil(),
		oauthrequest.UserIDIsNil(), oauthrequest.ExpiresAtGT(s.now())).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrNoRequest
	}
	return row, err
}

// Allow records the person userID's grant of scopes to the request's client (read always; write
// and send_mail only when asked and checked) and returns where the browser goes next: op's
// callback, which sends the code to the client.
func (s *Server) Allow(ctx context.Context, id, userID string, scopes []string) (string, error) {
	ctx = viewer.System(ctx, "oauth: record a person's grant")
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := dbx.TxFromContext(ctx).Ent()
		row, err := s.openRequest(ctx, tx, id)
		if err != nil {
			return err
		}
		granted := []string{"read"}
		for _, sc := range Scopes[1:] {
			if slices.Contains(row.Scopes, sc) && slices.Contains(scopes, sc) {
				granted = append(granted, sc)
			}
		}
		g, err := tx.OAuthGrant.Create().SetUserID(userID).SetClientID(row.ClientID).SetScopes(granted).Save(ctx)
		if err != nil {
			return err
		}
		if err := tx.OAuthClient.UpdateOneID(row.ClientID).SetLastUsedAt(s.now()).Exec(ctx); err != nil {
			return err
		}
		n, err := tx.OAuthRequest.Update().Where(oauthrequest.ID(id), oauthrequest.UserIDIsNil()).
			SetUserID(userID).SetGrantID(g.ID).SetGrantedScopes(granted).Save(ctx)
		if err != nil {
			return err
		}
		if n != 1 {
			return ErrNoRequest
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return s.issuer + callbackPath + "?id=" + url.QueryEscape(id), nil
}

// Deny ends the request and returns the client's redirect URI with error=access_denied.
func (s *Server) Deny(ctx context.Context, id string) (string, error) {
	ctx = viewer.System(ctx, "oauth: end a denied authorization request")
	row, err := s.openRequest(ctx, s.db.Ent, id)
	if err != nil {
		return "", err
	}
	if err := s.db.Ent.OAuthRequest.UpdateOneID(id).SetUsedAt(s.now()).Exec(ctx); err != nil {
		return "", err
	}
	u, err := url.Parse(row.RedirectURI)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("error", "access_denied")
	q.Set("error_description", "The person denied the authorization")
	if row.State != "" {
		q.Set("state", row.State)
	}
	q.Set("iss", s.issuer)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// revokeGrant revokes grant id and every token of it. ctx must be system work.
func (s *Server) revokeGrant(ctx context.Context, id string) error {
	now := s.now()
	return s.db.InTx(ctx, func(ctx context.Context) error {
		tx := dbx.TxFromContext(ctx).Ent()
		if err := tx.OAuthGrant.Update().Where(oauthgrant.ID(id), oauthgrant.RevokedAtIsNil()).
			SetRevokedAt(now).Exec(ctx); err != nil {
			return err
		}
		return tx.OAuthToken.Update().Where(oauthtoken.GrantID(id), oauthtoken.RevokedAtIsNil()).
			SetRevokedAt(now).Exec(ctx)
	})
}
