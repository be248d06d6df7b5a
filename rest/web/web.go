// Package web renders the pages Podium serves to people in browsers — sign-in, the reviewer
// desk, the call for proposals and the speaker portal — with one layout, the event's theme and
// no JavaScript: every page is a form that posts and a page that answers.
//
// A page is a Page rendered by Render: the layout (templates/layout.html) draws the head, the
// event's name and logo, who is signed in, a notice or an error, and then the template the page
// names in Content. Each area keeps its templates in its own files under templates/ (all parsed
// together at start), and its handlers in its own Go files.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/graph/scalar"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/podium.css
var stylesheet []byte

// StylesheetPath is where the stylesheet is served; the hash of its bytes in the name lets
// browsers keep it for a year and still see a new one at once.
var StylesheetPath = "/static/podium-" + shortHash(stylesheet) + ".css"

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	// local writes a time in an event's time zone (an IANA name), as the event's people read it:
	// the pages of an event never show UTC.
	"local":      local,
	"stylesheet": func() string { return StylesheetPath },
	"accent":     func(hex string) string { return AccentPath + strings.TrimPrefix(hex, "#") + ".css" },
}).ParseFS(templateFS, "templates/*.html"))

// local is t (a time.Time, scalar.Timestamp or a pointer to one) in the time zone tz, with the
// zone's abbreviation; empty for nil.
func local(t any, tz string) string {
	var at time.Time
	switch t := t.(type) {
	case time.Time:
		at = t
	case *time.Time:
		if t == nil {
			return ""
		}
		at = *t
	case scalar.Timestamp:
		at = t.Time
	case *scalar.Timestamp:
		if t == nil {
			return ""
		}
		at = t.Time
	default:
		return ""
	}
	return operation.FormatLocal(at, tz)
}

// Page is what the layout draws.
type Page struct {
	// Title is the page's heading and the first part of its <title>.
	Title string
	// Theme is the event's look; the zero Theme is Podium's own.
	Theme Theme
	// Person is who is signed in (the header shows them and a sign-out button); nil for nobody.
	Person *viewer.Person
	// Notice is a message of success at the top of the page (role status).
	Notice string
	// Error is a message at the top of the page (role alert), for a refused form or a failed step.
	Error string
	// Content names the template (defined in templates/) that draws the body; it receives Data.
	// Empty: no body.
	Content string
	// Data is what Content draws.
	Data any
	// FormAction are origins beyond this site that the page's forms may lead to, through
	// redirects (the OAuth consent page's answer goes on to the application). Empty: this site only.
	FormAction []string
}

// layout is what templates/layout.html draws: the page and its rendered content.
type layout struct {
	Page
	Body template.HTML
}

// Render writes p with status. Pages are never cached and never framed, and send no referrer
// (a URL may carry a token). A template that fails writes a plain error page instead of half a
// page: pages render into a buffer first.
func Render(w http.ResponseWriter, status int, p Page) {
	var b bytes.Buffer
	err := renderPage(&b, p)
	if err != nil {
		status = http.StatusInternalServerError
		b.Reset()
		_ = renderPage(&b, Page{Title: "Something went wrong",
			Error: "This page could not be shown. Try again in a moment."})
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	formAction := "'self'"
	for _, o := range p.FormAction {
		if !strings.ContainsAny(o, " ;,'\"\r\n") {
			formAction += " " + o
		}
	}
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action "+formAction+"; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	_, _ = io.Copy(w, &b)
}

func renderPage(b *bytes.Buffer, p Page) error {
	l := layout{Page: p}
	if p.Content != "" {
		var body strings.Builder
		if err := pages.ExecuteTemplate(&body, p.Content, p.Data); err != nil {
			return err
		}
		l.Body = template.HTML(body.String()) //nolint:gosec // the output of html/template, escaped
	}
	return pages.ExecuteTemplate(b, "layout", l)
}

// Stylesheet serves the pages' stylesheet at StylesheetPath.
func Stylesheet(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = w.Write(stylesheet)
}

// AccentPath is the prefix of the one-rule stylesheets that set an event's accent colour
// (AccentPath + "rrggbb.css"): the pages' Content-Security-Policy allows no inline style.
const AccentPath = "/static/accent/"

// Accent serves AccentPath + "rrggbb.css"; any other name is 404.
func Accent(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, AccentPath), ".css")
	if !hexColour.MatchString("#"+name) || !strings.HasSuffix(r.URL.Path, ".css") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = io.WriteString(w, ":root{--accent:#"+strings.ToLower(name)+"}\n")
}

// crossOrigin refuses writes that another site's page makes a browser send (Sec-Fetch-Site,
// then Origin against Host).
var crossOrigin = http.NewCrossOriginProtection()

// CheckOrigin is nil unless r is a cross-origin write: what Protect checks, for handlers that
// answer in another form (GraphQL authenticated by the session cookie).
func CheckOrigin(r *http.Request) error { return crossOrigin.Check(r) }

// Protect refuses cross-origin POSTs with a page saying so; every form handler is wrapped in it.
// Safe methods (GET, HEAD, OPTIONS) pass.
func Protect(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := crossOrigin.Check(r); err != nil {
			Render(w, http.StatusForbidden, Page{Title: "Refused",
				Error: "This request came from another site and was refused."})
			return
		}
		next(w, r)
	}
}

func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// firstLine is s up to its first line break, trimmed.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// WantsPage reports whether r comes from a person's browser, which asks for HTML first, rather
// than from an API client: an answer that is JSON for one is a page for the other.
func WantsPage(r *http.Request) bool { return strings.Contains(r.Header.Get("Accept"), "text/html") }

// Link is a link a page shows (template "link").
type Link struct{ Href, Text string }
