package rest

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/access/mailbudget"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/rest/web"
)

// Sign-in by email link and browser sessions (docs/people.md). These pages and endpoints live
// outside /api/v1, which stays API-key only: they are for people in browsers.
//
//	GET  /auth/signin              a form asking for an email address
//	POST /auth/signin              send a link (form or JSON {"email","next"}); 202, whatever the address
//	GET  /auth/link?token=…        a page with a button: mail scanners that open links do not burn them
//	POST /auth/link                consume the token, start a new session, 303 to where the link leads
//	GET  /portal/access/{token}    a contact's access link: a new session, pinned to their event (rest/access_links.go)
//	POST /auth/signout             end this session
//	POST /auth/signout-everywhere  end every session of this person
//	GET  /                         the home page: who Podium is for, or the signed-in person's home
//	GET  /me                       the signed-in person's homes, one per role, and connected applications (rest/web/home.go)
//	POST /me/connected-apps/{id}/revoke  revoke a connected application (docs/agents.md)
//	GET  /reviews, /reviews/{id}   the reviewer desk (rest/web/review.go); POST answers, recusal
//	GET  /portal                   the speaker portal (rest/web/portal.go, docs/portal.md)

// signInWorkers bounds the sign-in emails being prepared at once.
const signInWorkers = 4

// signIn is the state of the sign-in endpoints.
type signIn struct {
	people *access.People
	// ops are the operations the reviewer and portal pages call.
	ops *operation.Service
	// secure marks the cookie Secure (PUBLIC_URL is https) and names it with the __Host- prefix,
	// which browsers accept only for Secure, host-only cookies on path /.
	secure bool

	// budgets bound the sign-in links sent, in PostgreSQL, across every Podium process
	// (graph/access/mailbudget, docs/people.md).
	budgets *mailbudget.Budgets
	// work bounds the links being prepared in the background.
	work chan struct{}
	log  func(ctx context.Context, msg string, args ...any)
}

func newSignIn(people *access.People, publicURL string, log func(ctx context.Context, msg string, args ...any)) *signIn {
	return &signIn{
		people: people, secure: strings.HasPrefix(publicURL, "https://"), budgets: people.Budgets,
		work: make(chan struct{}, signInWorkers), log: log,
	}
}

// cookieName is the session cookie's name.
func (s *signIn) cookieName() string {
	if s.secure {
		return "__Host-podium_session"
	}
	return "podium_session"
}

// sessionSecret returns the session cookie's value of r, or "".
func (s *signIn) sessionSecret(r *http.Request) string {
	c, err := r.Cookie(s.cookieName())
	if err != nil {
		return ""
	}
	return c.Value
}

func (s *signIn) setCookie(w http.ResponseWriter, value string, expires time.Time) {
	c := &http.Cookie{Name: s.cookieName(), Value: value, Path: "/", HttpOnly: true, Secure: s.secure,
		SameSite: http.SameSiteLaxMode}
	if value == "" {
		c.MaxAge = -1
	} else {
		c.Expires = expires
	}
	http.SetCookie(w, c)
}

// routes mounts the sign-in pages. Every POST is refused when it comes from another origin.
func (s *signIn) routes(r chi.Router) {
	r.Get(web.StylesheetPath, web.Stylesheet)
	r.Get(web.AccentPath+"*", web.Accent)
	r.Get("/auth/signin", s.signInPage)
	r.Post("/auth/signin", web.Protect(s.requestLink))
	r.Get("/auth/link", s.linkPage)
	r.Post("/auth/link", web.Protect(s.followLink))
	r.Get("/portal/access/{token}", s.followAccessLink)
	r.Post("/auth/signout", web.Protect(s.signOut))
	r.Post("/auth/signout-everywhere", web.Protect(s.signOutEverywhere))
	home := &web.Home{People: s.people, Person: s.person, Log: s.log, Ops: s.ops}
	r.Get("/", home.Root)
	r.Get("/me", home.Me)
	r.Post("/me/connected-apps/{id}/revoke", web.Protect(home.RevokeApp))
	// Where Podium's emails lead (portal invitations, reviewer invitations and reminders): the
	// reviewer desk and the speaker portal, after signing in.
	(&web.Desk{Ops: s.ops, Person: s.person, Log: s.log}).Mount(r)
	(&web.Portal{Ops: s.ops, Person: s.person, Log: s.log}).Mount(r)
	web.MountProfile(r, &web.Desk{Ops: s.ops, Person: s.person, Log: s.log})
	web.MountAvailability(r, &web.Desk{Ops: s.ops, Person: s.person, Log: s.log})
	web.MountWebhooks(r, &web.Desk{Ops: s.ops, Person: s.person, Log: s.log})
}

// clientAddress is the request's peer address without its port.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// signInRequest is the body of POST /auth/signin.
type signInRequest struct {
	Email string `json:"email"`
	Next  string `json:"next"`
	// Form is a call-for-proposals form whose page asks for the link: any address may sign in
	// there (docs/cfp.md).
	Form string `json:"form"`
}

// requestLink draws on the sign-in budgets, answers 202 and prepares the link in the background,
// so that the answer and its timing are the same for a known address, an unknown one and a
// malformed one: the budgets are drawn for each alike, and only the background work tells them
// apart. From a call-for-proposals form (named by the request or by where it leads) any address
// gets its link, and the answer says so; elsewhere only an address Podium knows does, and the
// answer says that, in words that fit both.
func (s *signIn) requestLink(w http.ResponseWriter, r *http.Request) {
	in, asJSON, err := readSignIn(w, r)
	if err != nil {
		e, _ := apperr.As(err)
		writeJSON(w, e.Status, envelope{Error: envelopeError{Code: e.Code, Message: e.Message}})
		return
	}
	addr, next := access.NormalizeEmail(in.Email), access.SafeNext(in.Next)
	if in.Form != "" && access.FormOf(next) != in.Form {
		next = "/cfp/" + in.Form
	}
	pl := s.place(r.Context(), next)
	formID, org := "", ""
	if pl.form != nil {
		formID, org = pl.form.ID, pl.form.Edges.Event.OrganizationID
	}
	if err := s.budgets.SignIn(r.Context(), addr, clientAddress(r), formID, org); err != nil {
		s.refuse(w, r, err, asJSON, pl)
		return
	}
	if strings.Contains(addr, "@") && len(addr) <= 320 {
		// The lookup outlives the request, and is work of its own: its statements are counted
		// apart from the request's, which answered without waiting for any.
		ctx, _ := dbx.WithQueryCount(context.WithoutCancel(r.Context()))
		go func() {
			s.work <- struct{}{}
			defer func() { <-s.work }()
			if err := s.people.RequestLink(ctx, addr, next); err != nil {
				s.log(ctx, "sign-in link not sent", "err", err)
			}
		}()
	}
	sent := sentPage{Email: addr, Minutes: int(access.LinkLifetime / time.Minute), Form: pl.title, Retry: pl.retry()}
	if asJSON {
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "accepted", "message": sent.message()})
		return
	}
	web.Render(w, http.StatusAccepted, web.Page{Title: "Check your email", Theme: pl.theme, Content: "signin-sent", Data: sent})
}

// refuse answers a sign-in request over budget (429 with the wait), or one whose budgets could
// not be read.
func (s *signIn) refuse(w http.ResponseWriter, r *http.Request, err error, asJSON bool, pl place) {
	e, ok := apperr.As(err)
	if !ok {
		s.log(r.Context(), "sign-in budgets unavailable", "err", err)
		e = apperr.Internal()
	} else {
		w.Header().Set("Retry-After", strconv.Itoa(mailbudget.RetryAfter(err)))
		e = apperr.New(e.Status, e.Code, "Too many sign-in links were asked for: try again in "+
			mailbudget.Wait(time.Duration(mailbudget.RetryAfter(err))*time.Second)+". A link already sent works for "+
			strconv.Itoa(int(access.LinkLifetime/time.Minute))+" minutes.")
	}
	if asJSON {
		writeJSON(w, e.Status, envelope{Error: envelopeError{Code: e.Code, Message: e.Message}})
		return
	}
	web.Render(w, e.Status, web.Page{Title: "Slow down", Theme: pl.theme, Error: e.Message})
}

// sentPage is what the check-your-email page says (template signin-sent).
type sentPage struct {
	Email   string
	Minutes int
	// Form is the title of the call for proposals the link leads to: any address gets it. Empty
	// for a plain sign-in, which sends links only to addresses an event knows.
	Form string
	// Retry is the sign-in page to ask again, for the same place.
	Retry string
}

// message is the page's words for JSON clients.
func (p sentPage) message() string {
	if p.Form != "" {
		return "A sign-in link is on its way to " + p.Email + ". It works once, within " + strconv.Itoa(p.Minutes) + " minutes."
	}
	return "If a speaker, reviewer or organizer of an event uses " + p.Email + ", a sign-in link is on its way to it. " +
		"It works once, within " + strconv.Itoa(p.Minutes) + " minutes."
}

// place is where a sign-in leads, as the sign-in pages show it: an open call-for-proposals form
// wears its event's theme, and its page sends links to any address.
type place struct {
	next  string
	form  *ent.Form
	title string
	theme web.Theme
}

// place finds where next leads. A form that is closed, or unknown, is no place of its own: the
// sign-in is a plain one.
func (s *signIn) place(ctx context.Context, next string) place {
	pl := place{next: next}
	f, err := s.people.OpenForm(ctx, access.FormOf(next))
	if err != nil {
		s.log(ctx, "sign-in: form not read", "err", err)
	}
	if f != nil {
		pl.form, pl.title, pl.theme = f, f.ExternalTitle, web.ThemeOfEvent(f.Edges.Event)
	}
	return pl
}

// retry is the sign-in page for the same place.
func (pl place) retry() string { return "/auth/signin?next=" + url.QueryEscape(pl.next) }

// signInForm is what the sign-in form posts (template signin).
type signInForm struct {
	Next string
	// Form is the call for proposals whose page sends links to any address, and Title its title.
	Form, Title string
}

func (pl place) signInForm() signInForm {
	f := signInForm{Next: pl.next}
	if pl.form != nil {
		f.Form, f.Title = pl.form.ID, pl.title
	}
	return f
}

// readSignIn reads a sign-in request from a form or a JSON body.
func readSignIn(w http.ResponseWriter, r *http.Request) (signInRequest, bool, error) {
	var in signInRequest
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if mt == "application/json" {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			return in, true, apperr.InvalidJSON()
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			return in, true, apperr.InvalidJSON()
		}
		return in, true, nil
	}
	if err := r.ParseForm(); err != nil {
		return in, false, apperr.InvalidBody("The form could not be read")
	}
	return signInRequest{Email: r.PostForm.Get("email"), Next: r.PostForm.Get("next"), Form: r.PostForm.Get("form")}, false, nil
}

// followLink consumes the token and starts a new session: the cookie of any earlier session is
// replaced, never kept, so a session id planted before sign-in is worthless.
func (s *signIn) followLink(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		message(w, http.StatusBadRequest, "Sign-in failed", "The form could not be read.", nil)
		return
	}
	sess, err := s.people.FollowLink(r.Context(), r.PostForm.Get("token"), r.UserAgent())
	if err != nil {
		e, ok := apperr.As(err)
		if !ok {
			s.log(r.Context(), "sign-in failed", "err", err)
			message(w, http.StatusInternalServerError, "Sign-in failed", "Something went wrong; try again.", nil)
			return
		}
		// The sign-in page, still leading where the link led, for the same place: the person asks
		// for a new link.
		pl := s.place(r.Context(), access.SafeNext(r.PostForm.Get("next")))
		web.Render(w, e.Status, web.Page{Title: "Ask for a new link", Theme: pl.theme, Error: e.Message,
			Content: "signin", Data: pl.signInForm()})
		return
	}
	if old := s.sessionSecret(r); old != "" {
		_ = s.people.SignOut(r.Context(), old)
	}
	s.setCookie(w, sess.Secret, sess.ExpiresAt)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, sess.Next, http.StatusSeeOther)
}

func (s *signIn) signOut(w http.ResponseWriter, r *http.Request) {
	if err := s.people.SignOut(r.Context(), s.sessionSecret(r)); err != nil {
		s.log(r.Context(), "sign-out failed", "err", err)
	}
	s.setCookie(w, "", time.Time{})
	http.Redirect(w, r, "/auth/signin", http.StatusSeeOther)
}

func (s *signIn) signOutEverywhere(w http.ResponseWriter, r *http.Request) {
	if err := s.people.SignOutEverywhere(r.Context(), s.sessionSecret(r)); err != nil {
		if _, ok := apperr.As(err); !ok {
			s.log(r.Context(), "sign-out everywhere failed", "err", err)
		}
	}
	s.setCookie(w, "", time.Time{})
	http.Redirect(w, r, "/auth/signin", http.StatusSeeOther)
}

// person returns the signed-in person of r, or nil.
func (s *signIn) person(r *http.Request) *viewer.Person {
	secret := s.sessionSecret(r)
	if secret == "" {
		return nil
	}
	p, err := s.people.Authenticate(r.Context(), secret)
	if err != nil {
		return nil
	}
	return p
}

// message renders a page of one message, and a link when there is one.
func message(w http.ResponseWriter, status int, title, text string, link *web.Link) {
	p := web.Page{Title: title, Error: text}
	if status < 400 {
		p = web.Page{Title: title, Notice: text}
	}
	if link != nil {
		p.Content, p.Data = "link", link
	}
	web.Render(w, status, p)
}

func (s *signIn) signInPage(w http.ResponseWriter, r *http.Request) {
	pl := s.place(r.Context(), access.SafeNext(r.URL.Query().Get("next")))
	web.Render(w, http.StatusOK, web.Page{Title: "Sign in", Theme: pl.theme, Content: "signin", Data: pl.signInForm()})
}

// linkPage shows a button that posts the token: following a link with GET changes nothing, so
// a mail scanner that opens every link in an email does not use the link up.
func (s *signIn) linkPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	pl := s.place(r.Context(), access.SafeNext(q.Get("next")))
	web.Render(w, http.StatusOK, web.Page{Title: "Sign in", Theme: pl.theme, Content: "signin-confirm",
		Data: confirm{Token: q.Get("token"), Next: pl.next, Title: pl.title}})
}

// confirm is what the confirm page posts: the token, and where a refused link still leads
// (the sign-in page keeps it). The token's own next decides where a good link lands.
type confirm struct {
	Token, Next string
	// Title is the call for proposals the link leads to, if any.
	Title string
}
