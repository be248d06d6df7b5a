package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/rest/oauth"
)

// Consent serves the page where a person grants an application access (docs/agents.md):
//
//	GET  /oauth/consent?id=oar_…  what the application asks, with Allow and Deny
//	POST /oauth/consent           the answer: Allow records the grant and goes on to the
//	                              application with a code, Deny goes back with access_denied
//
// The page is always shown, even to a person who granted the same application before: an
// authorization request is anyone's to start, and only the person's click may finish it.
type Consent struct {
	OAuth *oauth.Server
	// Person returns the signed-in person of a request, or nil.
	Person func(*http.Request) *viewer.Person
	// Log records failures that are not the person's doing.
	Log func(ctx context.Context, msg string, args ...any)
}

// Mount adds the consent page to r; its POST is refused from another origin.
func (c *Consent) Mount(r chi.Router) {
	r.Get(oauth.ConsentPath, c.page)
	r.Post(oauth.ConsentPath, Protect(c.answer))
}

// consentPage is what template consent draws.
type consentPage struct {
	*oauth.ConsentRequest
	Email string
	// Write and SendMail report whether the application asked for them.
	Write, SendMail bool
}

func (c *Consent) page(w http.ResponseWriter, r *http.Request) {
	p := c.Person(r)
	if p == nil {
		http.Redirect(w, r, "/auth/signin?next="+url.QueryEscape(access.SafeNext(r.URL.RequestURI())), http.StatusSeeOther)
		return
	}
	req, err := c.OAuth.Consent(r.Context(), r.URL.Query().Get("id"))
	if err != nil {
		c.failed(w, r, p, err)
		return
	}
	Render(w, http.StatusOK, Page{Title: "Connect " + req.ClientName + " to Podium?", Person: p, Content: "consent",
		// The answer leads to the application's redirect URI: the form may go there.
		FormAction: []string{req.RedirectOrigin},
		Data: consentPage{ConsentRequest: req, Email: p.Email,
			Write: slices.Contains(req.Scopes, "write"), SendMail: slices.Contains(req.Scopes, "send_mail")}})
}

func (c *Consent) answer(w http.ResponseWriter, r *http.Request) {
	p := c.Person(r)
	if p == nil {
		http.Redirect(w, r, "/auth/signin", http.StatusSeeOther)
		return
	}
	if err := r.ParseForm(); err != nil {
		c.failed(w, r, p, apperr.InvalidBody("The form could not be read"))
		return
	}
	id := r.PostForm.Get("id")
	var next string
	var err error
	if r.PostForm.Get("decision") == "allow" {
		next, err = c.OAuth.Allow(r.Context(), id, p.UserID, r.PostForm["scope"])
	} else {
		next, err = c.OAuth.Deny(r.Context(), id)
	}
	if err != nil {
		c.failed(w, r, p, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (c *Consent) failed(w http.ResponseWriter, r *http.Request, p *viewer.Person, err error) {
	back := Link{Href: "/me", Text: "Your account"}
	if e, ok := apperr.As(err); ok {
		Render(w, e.Status, Page{Title: "Not available", Person: p, Error: e.Message, Content: "link", Data: &back})
		return
	}
	c.Log(r.Context(), "consent page failed", "err", err)
	Render(w, http.StatusInternalServerError, Page{Title: "Something went wrong", Person: p,
		Error: "This page could not be shown. Try again in a moment."})
}
