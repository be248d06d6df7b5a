package web

import (
	"net/http"
	"slices"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
)

// portal is the speaker portal's landing page: who is signed in and their sessions, tasks and
// resources in each event where they speak (the operation of GraphQL's mySpeaking). The full
// portal builds on it.
func (d *Desk) portal(w http.ResponseWriter, r *http.Request) {
	p, ctx, ok := d.signedIn(w, r)
	if !ok {
		return
	}
	events, err := d.Ops.Speaking(ctx)
	if err != nil {
		d.failed(w, r, p, err)
		return
	}
	Render(w, http.StatusOK, Page{Title: "Your speaker portal", Person: p, Content: "portal-home",
		Data: portalHome{Events: events, Reviews: slices.ContainsFunc(p.EventRoles, func(e viewer.EventRole) bool { return e.Role == "reviewer" })}})
}

// portalHome is what the portal's landing page draws.
type portalHome struct {
	Events []*graph.SpeakerEvent
	// Reviews says the person is also a reviewer somewhere: the page links to their reviews.
	Reviews bool
}
