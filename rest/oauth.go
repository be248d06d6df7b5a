package rest

import (
	"context"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/rest/oauth"
	"github.com/podium/podium/rest/web"
)

// mountOAuth serves the OAuth authorization server (package oauth, docs/agents.md) and its
// consent page, and lets the API accept its access tokens: an application acting for a person.
// Without a PUBLIC_URL there is no issuer, and no OAuth.
func (a *API) mountOAuth(r chi.Router, people *access.People, publicURL string) {
	if publicURL == "" {
		return
	}
	srv := oauth.New(oauth.Opts{DB: a.db, People: people, Issuer: publicURL, Log: a.log})
	a.auth.Tokens = srv
	srv.Mount(r)
	(&web.Consent{OAuth: srv, Person: a.signin.person,
		Log: func(ctx context.Context, msg string, args ...any) { a.log.ErrorContext(ctx, msg, args...) }}).Mount(r)
}
