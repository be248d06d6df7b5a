package web

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"
)

// Home serves the home pages (docs/people.md):
//
//	GET /    who Podium is for and how to sign in; for a signed-in person with one role, that
//	         role's page (the portal, the reviewer desk, GraphiQL), else what /me shows
//	GET /me  the signed-in person's homes, one per role, by the names of their events and
//	         organizations, and the applications they connected through OAuth (docs/agents.md)
//	POST /me/connected-apps/{id}/revoke  revoke one of those applications, at once
//
// A sign-in that names no place lands on /, so each person lands where their role works.
type Home struct {
	People *access.People
	// Person returns the signed-in person of a request, or nil.
	Person func(*http.Request) *viewer.Person
	// Log records failures that are not the person's doing.
	Log func(ctx context.Context, msg string, args ...any)
	// Ops list and revoke the person's connected applications.
	Ops *operation.Service
}

// homePage is what template home draws.
type homePage struct {
	Person *viewer.Person
	Homes  []access.Home
	// Apps are the applications the person connected (on /me only).
	Apps []*model.ConnectedApp
}

// Root serves GET /.
func (h *Home) Root(w http.ResponseWriter, r *http.Request) {
	p := h.Person(r)
	if p == nil {
		Render(w, http.StatusOK, Page{Title: "Podium", Content: "home-welcome"})
		return
	}
	homes, ok := h.homes(w, r, p)
	if !ok {
		return
	}
	if len(homes) == 1 {
		http.Redirect(w, r, homes[0].Href, http.StatusSeeOther)
		return
	}
	Render(w, http.StatusOK, Page{Title: "Welcome", Person: p, Content: "home", Data: homePage{Person: p, Homes: homes}})
}

// Me serves GET /me.
func (h *Home) Me(w http.ResponseWriter, r *http.Request) {
	p := h.Person(r)
	if p == nil {
		http.Redirect(w, r, "/auth/signin?next=%2Fme", http.StatusSeeOther)
		return
	}
	homes, ok := h.homes(w, r, p)
	if !ok {
		return
	}
	var apps []*model.ConnectedApp
	if h.Ops != nil {
		var err error
		if apps, err = h.Ops.MyConnectedApps(h.own(r, p)); err != nil {
			h.Log(r.Context(), "home page: connected applications not read", "err", err)
		}
	}
	page := Page{Title: "Welcome", Person: p, Content: "home", Data: homePage{Person: p, Homes: homes, Apps: apps}}
	if r.URL.Query().Get("revoked") != "" {
		page.Notice = "The application was disconnected: its access ended at once."
	}
	Render(w, http.StatusOK, page)
}

// RevokeApp serves POST /me/connected-apps/{id}/revoke: the application's grant is revoked and
// every token of it refused from the next request on.
func (h *Home) RevokeApp(w http.ResponseWriter, r *http.Request) {
	p := h.Person(r)
	if p == nil {
		http.Redirect(w, r, "/auth/signin?next=%2Fme", http.StatusSeeOther)
		return
	}
	if _, err := h.Ops.RevokeMyConnectedApp(h.own(r, p), chi.URLParam(r, "id")); err != nil {
		(&Desk{Log: h.Log}).failedBack(w, r, p, err, Link{Href: "/me", Text: "Back to your account"})
		return
	}
	http.Redirect(w, r, "/me?revoked=1", http.StatusSeeOther)
}

// own is the context of the person managing their own account.
func (h *Home) own(r *http.Request, p *viewer.Person) context.Context {
	return viewer.NewContext(r.Context(), access.PersonViewer(p, ""))
}

func (h *Home) homes(w http.ResponseWriter, r *http.Request, p *viewer.Person) ([]access.Home, bool) {
	homes, err := h.People.Homes(r.Context(), p)
	if err != nil {
		h.Log(r.Context(), "home page failed", "err", err)
		Render(w, http.StatusInternalServerError, Page{Title: "Something went wrong", Person: p,
			Error: "This page could not be shown. Try again in a moment."})
		return nil, false
	}
	return homes, true
}
