package operation

import (
	"context"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/oauthgrant"
	"github.com/podium/podium/ent/oauthtoken"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
)

// Connected applications (docs/agents.md): the grants a person made to applications through OAuth
// (package rest/oauth). Grants are system state, like browser sessions: a person spans
// organizations, and so do their grants. Their statements run on the system pool, filtered to the
// caller's own user id.

// ErrOwnBrowserOnly refuses connected applications to anyone but the person in their own browser:
// an API key has no person, and an application must not see or end the person's other grants.
var ErrOwnBrowserOnly = apperr.Forbidden("Only you, signed in to Podium in your browser, manage your connected applications")

// connectedAppsCaller returns the person of ctx managing their connected applications.
func connectedAppsCaller(ctx context.Context) (*viewer.Person, error) {
	v, err := access.Viewer(ctx)
	if err != nil {
		return nil, err
	}
	if v.Person == nil || v.Client != nil {
		return nil, ErrOwnBrowserOnly
	}
	return v.Person, nil
}

// MyConnectedApps lists the caller's grants not revoked, newest first.
func (r *Service) MyConnectedApps(ctx context.Context) ([]*model.ConnectedApp, error) {
	p, err := connectedAppsCaller(ctx)
	if err != nil {
		return nil, err
	}
	sys := viewer.System(ctx, "connected apps: a person's OAuth grants, which span organizations")
	grants, err := r.DB.Ent.OAuthGrant.Query().Where(oauthgrant.UserID(p.UserID), oauthgrant.RevokedAtIsNil()).
		WithClient().Order(ent.Desc(oauthgrant.FieldCreatedAt), ent.Desc(oauthgrant.FieldID)).All(sys)
	if err != nil {
		return nil, err
	}
	out := make([]*model.ConnectedApp, len(grants))
	for i, g := range grants {
		out[i] = toConnectedApp(g)
	}
	return out, nil
}

// RevokeMyConnectedApp revokes the caller's grant id and every token of it, at once: the tokens
// are checked against their grant on every call.
func (r *Service) RevokeMyConnectedApp(ctx context.Context, id string) (*model.ConnectedApp, error) {
	p, err := connectedAppsCaller(ctx)
	if err != nil {
		return nil, err
	}
	sys := viewer.System(ctx, "connected apps: revoke a person's OAuth grant and its tokens")
	g, err := r.DB.Ent.OAuthGrant.Query().Where(oauthgrant.ID(id), oauthgrant.UserID(p.UserID)).WithClient().Only(sys)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("Connected application")
	}
	if err != nil {
		return nil, err
	}
	if g.RevokedAt == nil {
		now := time.Now()
		// Both statements run on the system pool, outside the mutation's transaction: should it
		// roll back, the grant stays revoked, which errs on the safe side.
		if err := r.DB.Ent.OAuthGrant.Update().Where(oauthgrant.ID(g.ID), oauthgrant.RevokedAtIsNil()).
			SetRevokedAt(now).Exec(sys); err != nil {
			return nil, err
		}
		if err := r.DB.Ent.OAuthToken.Update().Where(oauthtoken.GrantID(g.ID), oauthtoken.RevokedAtIsNil()).
			SetRevokedAt(now).Exec(sys); err != nil {
			return nil, err
		}
		g.RevokedAt = &now
	}
	return toConnectedApp(g), nil
}

func toConnectedApp(g *ent.OAuthGrant) *model.ConnectedApp {
	out := &model.ConnectedApp{ID: g.ID, ClientID: g.ClientID, CreatedAt: g.CreatedAt, LastUsedAt: g.LastUsedAt}
	for _, s := range g.Scopes {
		out.Scopes = append(out.Scopes, model.APIKeyScope(s))
	}
	if c := g.Edges.Client; c != nil {
		out.Name = c.Name
		if c.URI != "" {
			uri := c.URI
			out.URI = &uri
		}
	}
	return out
}
