package rest

import (
	"crypto/subtle"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/rest/web"
)

// Deliverability's HTTP endpoints (docs/deliverability.md), outside /api/v1: neither takes an API
// key. The unsubscribe link's signed token is its own credential; the mail provider's reports
// carry the server's hook secret.

// mountDeliverability adds the unsubscribe link and the mail provider's report hooks.
func (a *API) mountDeliverability(r chi.Router) {
	r.Get(jobs.UnsubscribePath+"{token}", a.unsubscribePage)
	r.Post(jobs.UnsubscribePath+"{token}", a.unsubscribe)
	r.Post("/hooks/email-events", a.emailEvents)
	r.Post("/hooks/email-dsn", a.emailDSN)
}

// unsubscribePage is what the link opens: the address and a button. A GET never unsubscribes:
// mail scanners and link previews open links nobody clicked.
type unsubscribePage struct {
	Address, Action string
}

func (a *API) unsubscribePage(w http.ResponseWriter, r *http.Request) {
	token := chi.URLParam(r, "token")
	address, err := a.ops.UnsubscribeAddress(token)
	if err != nil {
		web.Render(w, http.StatusNotFound, web.Page{Title: "Unsubscribe",
			Error: "This unsubscribe link is not valid. Copy the whole link from the email."})
		return
	}
	web.Render(w, http.StatusOK, web.Page{Title: "Unsubscribe", Content: "unsubscribe",
		Data: unsubscribePage{Address: address, Action: jobs.UnsubscribePath + token}})
}

// unsubscribe is the one-click POST of mail clients (RFC 8058: body List-Unsubscribe=One-Click,
// no cookies) and the page's button: both unsubscribe and answer 200, the page's with a
// confirmation.
func (a *API) unsubscribe(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	_, _ = io.Copy(io.Discard, r.Body)
	address, err := a.ops.Unsubscribe(r.Context(), chi.URLParam(r, "token"))
	if err != nil {
		if e, ok := apperr.As(err); ok && e.Code == apperr.CodeNotFound {
			web.Render(w, http.StatusNotFound, web.Page{Title: "Unsubscribe",
				Error: "This unsubscribe link is not valid. Copy the whole link from the email."})
			return
		}
		a.log.ErrorContext(r.Context(), "unsubscribe failed", "err", err)
		web.Render(w, http.StatusServiceUnavailable, web.Page{Title: "Unsubscribe",
			Error: "Podium could not record it just now. Try again in a moment."})
		return
	}
	web.Render(w, http.StatusOK, web.Page{Title: "Unsubscribed", Content: "unsubscribed",
		Data: unsubscribePage{Address: address}})
}

// hookAllowed checks the mail provider's bearer secret (PODIUM_EMAIL_HOOK_SECRET), in constant
// time, and answers 401 when it is missing or wrong, 404 when the server has none.
func (a *API) hookAllowed(w http.ResponseWriter, r *http.Request) bool {
	secret := a.ops.EmailHookSecret
	if secret == "" {
		a.notFound(w, r)
		return false
	}
	given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(given), []byte(secret)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="podium-email-hooks"`)
		a.writeError(w, r, apperr.New(http.StatusUnauthorized, apperr.CodeInvalidAPIKey,
			"Send the email hook secret as a bearer token"))
		return false
	}
	return true
}

// emailEvents takes a bounce or complaint report: {type, email, messageId, reason}.
func (a *API) emailEvents(w http.ResponseWriter, r *http.Request) {
	if !a.hookAllowed(w, r) {
		return
	}
	var e operation.EmailEvent
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		a.writeError(w, r, apperr.Invalid("The body must be a JSON object {type, email, messageId, reason}"))
		return
	}
	if err := a.ops.RecordEmailEvent(r.Context(), e); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"recorded": 1})
}

// emailDSN takes a delivery-status notification as the relay returned it (Content-Type
// message/rfc822: the whole multipart/report message).
func (a *API) emailDSN(w http.ResponseWriter, r *http.Request) {
	if !a.hookAllowed(w, r) {
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "message/rfc822" {
		a.writeError(w, r, apperr.Invalid("Send the notification as message/rfc822"))
		return
	}
	n, err := a.ops.RecordDSN(r.Context(), http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"recorded": n})
}
