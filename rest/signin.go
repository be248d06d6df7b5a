package rest

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"golang.org/x/time/rate"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/rest/web"
)

// Sign-in by email link and browser sessions (docs/people.md). These pages and endpoints live
// outside /api/v1, which stays API-key only: they are for people in browsers.
//
//	GET  /auth/signin              a form asking for an email address
//	POST /auth/signin              send a link (form or JSON {"email","next"}); 202, whatever the address
//	GET  /auth/link?token=…        a page with a button: mail scanners that open links do not burn them
//	POST /auth/link                consume the token, start a new session, 303 to where the link leads
//	POST /auth/signout             end this session
//	POST /auth/signout-everywhere  end every session of this person
//	GET  /me                       who is signed in and what they may do
//	GET  /reviews, /reviews/{id}   the reviewer desk (rest/web/review.go); POST answers, recusal
//	GET  /portal                   the speaker portal (rest/web/portal.go, docs/portal.md)

// Rates of sign-in requests, per address and per client address (IP): a few links a quarter
// hour for one address is what a person needs, and the limit keeps a stranger from filling
// someone's inbox. Both live in this process, like the API key buckets.
var (
	signInPerAddress = rate.Every(3 * time.Minute) // 5 at once, then one every 3 minutes
	signInPerClient  = rate.Every(6 * time.Second) // 20 at once, then 10 a minute
)

const (
	signInAddressBurst = 5
	signInClientBurst  = 20
	// signInWorkers bounds the sign-in emails being prepared at once.
	signInWorkers = 4
)

// signIn is the state of the sign-in endpoints.
type signIn struct {
	people *access.People
	// ops are the operations the reviewer and portal pages call.
	ops *graph.Resolver
	// secure marks the cookie Secure (PUBLIC_URL is https) and names it with the __Host- prefix,
	// which browsers accept only for Secure, host-only cookies on path /.
	secure bool

	mu        sync.Mutex
	addresses *buckets
	clients   *buckets
	// work bounds the links being prepared in the background.
	work chan struct{}
	log  func(ctx context.Context, msg string, args ...any)
}

func newSignIn(people *access.People, publicURL string, log func(ctx context.Context, msg string, args ...any)) *signIn {
	return &signIn{
		people: people, secure: strings.HasPrefix(publicURL, "https://"),
		addresses: newBuckets(signInPerAddress, signInAddressBurst), clients: newBuckets(signInPerClient, signInClientBurst),
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
	r.Post("/auth/signout", web.Protect(s.signOut))
	r.Post("/auth/signout-everywhere", web.Protect(s.signOutEverywhere))
	r.Get("/me", s.mePage)
	// Where Podium's emails lead (portal invitations, reviewer invitations and reminders): the
	// reviewer desk and the speaker portal, after signing in.
	(&web.Desk{Ops: s.ops, Person: s.person, Log: s.log}).Mount(r)
	(&web.Portal{Ops: s.ops, Person: s.person, Log: s.log}).Mount(r)
	web.MountProfile(r, &web.Desk{Ops: s.ops, Person: s.person, Log: s.log})
	web.MountWebhooks(r, &web.Desk{Ops: s.ops, Person: s.person, Log: s.log})
}

// allow takes a token from the buckets of the address and of the client.
func (s *signIn) allow(addr, client string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	a, c := s.addresses.of(addr, now), s.clients.of(client, now)
	// Both must allow; a refused client does not spend the address's token, and the reverse.
	ra, rc := a.ReserveN(now, 1), c.ReserveN(now, 1)
	if ra.DelayFrom(now) > 0 || rc.DelayFrom(now) > 0 {
		ra.CancelAt(now)
		rc.CancelAt(now)
		return false
	}
	return true
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

// signInAnswer is what POST /auth/signin answers, whatever the address.
const signInAnswer = "If this address is known to Podium, a sign-in link is on its way. It works once, within 15 minutes."

// requestLink answers 202 at once and prepares the link in the background, so that the answer
// and its timing are the same for a known address, an unknown one and a malformed one.
func (s *signIn) requestLink(w http.ResponseWriter, r *http.Request) {
	in, asJSON, err := readSignIn(w, r)
	if err != nil {
		e, _ := apperr.As(err)
		writeJSON(w, e.Status, envelope{Error: envelopeError{Code: e.Code, Message: e.Message}})
		return
	}
	addr := access.NormalizeEmail(in.Email)
	if !s.allow(addr, clientAddress(r)) {
		w.Header().Set("Retry-After", "60")
		e := apperr.New(http.StatusTooManyRequests, apperr.CodeRateLimited, "Too many sign-in requests: wait a minute and try again")
		if asJSON {
			writeJSON(w, e.Status, envelope{Error: envelopeError{Code: e.Code, Message: e.Message}})
		} else {
			message(w, e.Status, "Slow down", e.Message, nil)
		}
		return
	}
	if strings.Contains(addr, "@") && len(addr) <= 320 {
		// The lookup outlives the request, and is work of its own: its statements are counted
		// apart from the request's, which answered without waiting for any.
		ctx, _ := dbx.WithQueryCount(context.WithoutCancel(r.Context()))
		go func() {
			s.work <- struct{}{}
			defer func() { <-s.work }()
			request := s.people.RequestLink
			if in.Form != "" {
				request = func(ctx context.Context, addr, next string) error {
					return s.people.RequestFormLink(ctx, addr, next, in.Form)
				}
			}
			if err := request(ctx, addr, in.Next); err != nil {
				s.log(ctx, "sign-in link not sent", "err", err)
			}
		}()
	}
	if asJSON {
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "accepted", "message": signInAnswer})
		return
	}
	message(w, http.StatusAccepted, "Check your email", signInAnswer, nil)
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
		// The sign-in page, still leading where the link led: the person asks for a new link.
		web.Render(w, e.Status, web.Page{Title: "Sign in to Podium", Error: e.Message, Content: "signin",
			Data: access.SafeNext(r.PostForm.Get("next"))})
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
	web.Render(w, http.StatusOK, web.Page{Title: "Sign in to Podium", Content: "signin",
		Data: access.SafeNext(r.URL.Query().Get("next"))})
}

// linkPage shows a button that posts the token: following a link with GET changes nothing, so
// a mail scanner that opens every link in an email does not use the link up.
func (s *signIn) linkPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	web.Render(w, http.StatusOK, web.Page{Title: "Sign in to Podium", Content: "signin-confirm",
		Data: confirm{Token: q.Get("token"), Next: access.SafeNext(q.Get("next"))}})
}

// confirm is what the confirm page posts: the token, and where a refused link still leads
// (the sign-in page keeps it). The token's own next decides where a good link lands.
type confirm struct {
	Token, Next string
}

// mePage says who is signed in and what they are; the organizer, reviewer and speaker pages that
// build on it come later.
func (s *signIn) mePage(w http.ResponseWriter, r *http.Request) {
	p := s.person(r)
	if p == nil {
		http.Redirect(w, r, "/auth/signin", http.StatusSeeOther)
		return
	}
	web.Render(w, http.StatusOK, web.Page{Title: "Podium", Person: p, Content: "me", Data: p})
}
