package web

import (
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
)

// webhookLogSize is how many of the latest deliveries the endpoint's page lists.
const webhookLogSize = 20

// MountWebhooks adds /webhooks/{id}: an organization's webhook endpoint and its latest
// deliveries, for its owners and admins signed in — where the email telling them Podium disabled
// the endpoint leads (docs/webhooks.md). It reads through the operations GraphQL's webhook and
// webhookDeliveries run, under the same rules; changing the endpoint stays with the API and
// GraphQL. `?organization=org_…` picks the organization of a person in several.
func MountWebhooks(r chi.Router, d *Desk) {
	r.Get("/webhooks/{id}", d.webhook)
}

type webhookPage struct {
	Endpoint   *model.Webhook
	Deliveries []*model.WebhookDeliveryEntry
	// Timezone is the zone the page writes times in (operation.Service.OrganizationTimezone).
	Timezone string
}

func (d *Desk) webhook(w http.ResponseWriter, r *http.Request) {
	p := d.Person(r)
	if p == nil {
		http.Redirect(w, r, "/auth/signin?next="+url.QueryEscape(access.SafeNext(r.URL.RequestURI())), http.StatusSeeOther)
		return
	}
	ctx := viewer.NewContext(r.Context(), access.PersonViewer(p, r.URL.Query().Get("organization")))
	back := Link{Href: "/me", Text: "Back to your account"}
	for _, field := range []string{"webhook", "webhookDeliveries"} {
		if err := access.RootField(ctx, "Query", field); err != nil {
			d.failedBack(w, r, p, apperr.NotFound("Webhook endpoint"), back)
			return
		}
	}
	id := chi.URLParam(r, "id")
	endpoint, err := d.Ops.Webhook(ctx, id)
	if err != nil {
		d.failedBack(w, r, p, err, back)
		return
	}
	size := webhookLogSize
	deliveries, err := d.Ops.WebhookDeliveries(ctx, id, nil, &size)
	if err != nil {
		d.failedBack(w, r, p, err, back)
		return
	}
	tz, err := d.Ops.OrganizationTimezone(ctx)
	if err != nil {
		d.failedBack(w, r, p, err, back)
		return
	}
	Render(w, http.StatusOK, Page{Title: "Webhook endpoint", Person: p, Content: "webhook",
		Data: webhookPage{Endpoint: endpoint, Deliveries: deliveries, Timezone: tz}})
}
