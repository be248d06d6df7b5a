package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/rest/web"
)

// followAccessLink serves GET /portal/access/{token}, the access link every email to a contact
// carries (docs/portal.md): it opens a new session for the contact's address, pins the portal to
// the contact's event and leads there. Opening it spends nothing, so it signs in on GET; a link
// that is expired, revoked or unknown answers the sign-in form for the portal, with why.
func (s *signIn) followAccessLink(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	sess, err := s.people.FollowAccessLink(r.Context(), chi.URLParam(r, "token"), r.UserAgent())
	if err != nil {
		e, ok := apperr.As(err)
		if !ok {
			s.log(r.Context(), "access link failed", "err", err)
			message(w, http.StatusInternalServerError, "Sign-in failed", "Something went wrong; try again.", nil)
			return
		}
		pl := s.place(r.Context(), "/portal")
		web.Render(w, e.Status, web.Page{Title: "Ask for a new link", Theme: pl.theme, Error: e.Message,
			Content: "signin", Data: pl.signInForm()})
		return
	}
	if old := s.sessionSecret(r); old != "" {
		_ = s.people.SignOut(r.Context(), old)
	}
	s.setCookie(w, sess.Secret, sess.ExpiresAt)
	web.PinPortalEvent(w, r, sess.EventID)
	http.Redirect(w, r, sess.Next, http.StatusSeeOther)
}
