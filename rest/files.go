package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/files"
	"github.com/podium/podium/rest/web"
)

// Files: downloads of stored files (docs/files.md). Uploads are GraphQL only (the organizer app);
// the REST API attaches links and embeds, and reads files.

// fileBody documents a route that answers a file's bytes (see openapi.go).
type fileBody struct{}

// downloadFile streams a file of the event: GET E/files/{fileId}.
func (a *API) downloadFile(ctx context.Context, q *request) (any, error) {
	f, err := a.ops.OpenEventFile(ctx, q.param("eventId"), q.param("fileId"))
	if err != nil {
		return nil, err
	}
	return &response{stream: func(w http.ResponseWriter) {
		files.Serve(w, q.Request, f.Object, f.Name, f.ContentType)
	}}, nil
}

// refuseDownload answers a download link that cannot be served: a page for a person's browser
// (a link from an email or a page, opened once it expired), the error envelope for API clients.
func (a *API) refuseDownload(w http.ResponseWriter, r *http.Request, err error) {
	if !web.WantsPage(r) {
		a.writeError(w, r, err)
		return
	}
	e := a.errorOf(w, r, err)
	msg := e.Message
	if e.Status < http.StatusInternalServerError {
		msg = "This download link has expired or is not valid. Go back to the page that offered the file and " +
			"open it again: each visit makes a fresh link."
	}
	web.Render(w, e.Status, web.Page{Title: "Download not available", Error: msg})
}

// serveSignedFile streams the file of a signed URL (GraphQL's download URLs): no API key, the
// signature and its expiry are the credential, and a row of the key's organization must still
// point at the file.
func (a *API) serveSignedFile(w http.ResponseWriter, r *http.Request) {
	if a.ops.Files == nil {
		http.NotFound(w, r)
		return
	}
	org := chi.URLParam(r, "orgId")
	key, err := a.ops.Files.VerifySigned(org, chi.URLParam(r, "fileId"),
		r.URL.Query().Get("expires"), r.URL.Query().Get("signature"))
	if err != nil {
		a.refuseDownload(w, r, err)
		return
	}
	f, err := a.ops.OpenSignedFile(viewer.WithOrganization(r.Context(), org), key)
	if err != nil {
		a.refuseDownload(w, r, err)
		return
	}
	files.Serve(w, r, f.Object, f.Name, f.ContentType)
}
