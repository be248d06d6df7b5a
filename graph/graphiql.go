package graph

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"time"
)

// WantsGraphiQL reports whether r is a browser opening /graphql, which gets GraphiQL rather than
// a GraphQL response: the page, or one of the files it loads (GET /graphql?graphiql=NAME). Both
// are public; the page's queries run as the signed-in person, or with the API key typed into its
// Headers.
func WantsGraphiQL(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	if r.URL.RawQuery == "" {
		return strings.Contains(r.Header.Get("Accept"), "text/html")
	}
	q := r.URL.Query()
	_, ok := graphiqlAssets()[q.Get(graphiqlAssetParam)]
	return ok && len(q) == 1
}

// graphiqlFiles are GraphiQL's scripts and stylesheet — graphiql 4.1.2, react and react-dom
// 18.2.0 from npm (MIT, see the LICENSE files), byte for byte the files gqlgen pins by SRI hash
// on cdn.jsdelivr.net — and Podium's own start script and stylesheet (podium.js, podium.css),
// all served by Podium itself: GraphiQL opens where the browser cannot reach the CDN and loads
// nothing from a third party. When gqlgen moves to other versions, replace the files with its
// new ones.
//
//go:embed graphiql/*.js graphiql/*.css
var graphiqlFiles embed.FS

// graphiqlAssetParam names a GraphiQL file in GET /graphql?graphiql=NAME. The files share the
// page's path so that serving them needs no route beyond /graphql.
const graphiqlAssetParam = "graphiql"

// graphiqlAsset is one file of GraphiQL, with its SRI hash ("sha256-…"), which the page checks
// and which is also its ETag.
type graphiqlAsset struct {
	body        []byte
	sri         string
	contentType string
}

// graphiqlAssets reads the embedded files once, by name.
var graphiqlAssets = sync.OnceValue(func() map[string]graphiqlAsset {
	entries, err := graphiqlFiles.ReadDir("graphiql")
	if err != nil {
		panic(err)
	}
	assets := make(map[string]graphiqlAsset, len(entries))
	for _, e := range entries {
		body, err := graphiqlFiles.ReadFile("graphiql/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		contentType := "text/javascript; charset=utf-8"
		if strings.HasSuffix(e.Name(), ".css") {
			contentType = "text/css; charset=utf-8"
		}
		assets[e.Name()] = graphiqlAsset{body: body, sri: "sha256-" + base64.StdEncoding.EncodeToString(sum[:]),
			contentType: contentType}
	}
	return assets
})

// graphiqlPage is GraphiQL's page: no inline script or style, so that its Content-Security-Policy
// admits scripts of this site only; graphiql/podium.js starts GraphiQL and says who the queries
// run as. The line above the editor says it for someone not signed in.
var graphiqlPage = template.Must(template.New("graphiql").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Podium GraphQL</title>
{{range .Styles}}<link rel="stylesheet" href="{{.Href}}" integrity="{{.SRI}}" crossorigin="anonymous">
{{end}}{{range .Head}}<script src="{{.Href}}" integrity="{{.SRI}}" crossorigin="anonymous"></script>
{{end}}</head>
<body>
<p id="podium-hint"><a href="/auth/signin?next=%2Fgraphql">Sign in</a> and queries run as you: organizers
need no key. An API key is for integrators only: put it in <b>Headers</b> below the editor, as
<code>{"Authorization": "Bearer pdm_…"}</code> (<code>podium keys create --org NAME</code> prints one).</p>
<div id="graphiql"><div class="loading">Loading…</div></div>
{{range .Body}}<script src="{{.Href}}" integrity="{{.SRI}}" crossorigin="anonymous"></script>
{{end}}</body>
</html>
`))

// graphiqlCSP is the page's Content-Security-Policy: scripts, styles, fonts and requests of this
// site only (GraphiQL sets styles from its scripts and inlines its icons and fonts as data:),
// never framed, no base or form target.
const graphiqlCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// newGraphiQL serves GraphiQL's page for /graphql and its files.
func newGraphiQL() http.Handler {
	assets := graphiqlAssets()
	type file struct{ Href, SRI string }
	ref := func(name string) file {
		return file{Href: "/graphql?" + graphiqlAssetParam + "=" + name, SRI: assets[name].sri}
	}
	var page bytes.Buffer
	if err := graphiqlPage.Execute(&page, map[string][]file{
		"Styles": {ref("graphiql.min.css"), ref("podium.css")},
		"Head":   {ref("react.production.min.js"), ref("react-dom.production.min.js")},
		"Body":   {ref("graphiql.min.js"), ref("podium.js")},
	}); err != nil {
		panic(err)
	}
	html := page.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := assets[r.URL.Query().Get(graphiqlAssetParam)]
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		if !ok {
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Content-Security-Policy", graphiqlCSP)
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "no-referrer")
			h.Set("Cache-Control", "no-store")
			_, _ = w.Write(html)
			return
		}
		h.Set("Content-Type", a.contentType)
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("ETag", `"`+a.sri+`"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
	})
}
