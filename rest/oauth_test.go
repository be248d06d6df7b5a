package rest_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/podium/podium/ent/oauthclient"
	"github.com/podium/podium/ent/oauthgrant"
	"github.com/podium/podium/ent/oauthrequest"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/ent/user"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/rest"
)

// publicURL is the bundle's PUBLIC_URL: the OAuth issuer.
const publicURL = "https://podium.example.test"

// routerTransport serves an HTTP client's requests with the bundle's router, as if they came from
// remote: the client of the OAuth flow, a browser or an application, without a network.
type routerTransport struct {
	h      http.Handler
	remote string
	cookie string
}

func (t routerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RemoteAddr = t.remote
	r.RequestURI = req.URL.RequestURI()
	if t.cookie != "" {
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: t.cookie})
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	res := rec.Result()
	res.Request = req
	return res, nil
}

// oauthFlow is an application connecting to Podium for a person: its registration, its
// configuration, and two HTTP clients — the application's, and the person's browser.
type oauthFlow struct {
	b        *testBundle
	app      *http.Client
	browser  *http.Client
	ctx      context.Context
	clientID string
	cfg      *oauth2.Config
}

// noRedirects makes a client return redirects instead of following them.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// newOAuthFlow registers an application from 192.0.2.10 whose person's browser carries cookie.
func (b *testBundle) newOAuthFlow(cookie string, scopes ...string) *oauthFlow {
	b.t.Helper()
	f := &oauthFlow{b: b,
		app:     &http.Client{Transport: routerTransport{h: b.handler, remote: "192.0.2.10:40000"}, CheckRedirect: noRedirects},
		browser: &http.Client{Transport: routerTransport{h: b.handler, remote: "198.51.100.7:50000", cookie: cookie}, CheckRedirect: noRedirects},
	}
	f.ctx = context.WithValue(context.Background(), oauth2.HTTPClient, f.app)
	status, reg := f.register(map[string]any{"client_name": "Claude", "redirect_uris": []string{"http://127.0.0.1:7777/callback"}})
	require.Equal(b.t, http.StatusCreated, status, reg)
	f.clientID = reg["client_id"].(string)
	f.cfg = &oauth2.Config{ClientID: f.clientID, RedirectURL: "http://127.0.0.1:7777/callback", Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: publicURL + "/oauth/authorize", TokenURL: publicURL + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInParams}}
	return f
}

// register posts RFC 7591 metadata from the application's network.
func (f *oauthFlow) register(meta map[string]any) (int, map[string]any) {
	f.b.t.Helper()
	raw, err := json.Marshal(meta)
	require.NoError(f.b.t, err)
	post, err := f.app.Post(publicURL+"/oauth/register", "application/json", strings.NewReader(string(raw)))
	res, body := readReply(f.b.t, post, err)
	var out map[string]any
	require.NoError(f.b.t, json.Unmarshal([]byte(body), &out))
	return res.StatusCode, out
}

// oauthReply is a response read whole, its body closed.
type oauthReply struct {
	StatusCode int
	Header     http.Header
}

// readReply reads res whole and closes its body.
func readReply(t *testing.T, res *http.Response, err error) (*oauthReply, string) {
	t.Helper()
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return &oauthReply{StatusCode: res.StatusCode, Header: res.Header}, string(body)
}

// get sends the browser to u and returns the response, redirects not followed.
func (f *oauthFlow) get(u string) (*oauthReply, string) {
	f.b.t.Helper()
	res, err := f.browser.Get(u)
	return readReply(f.b.t, res, err)
}

// post posts a form with client c and returns the response.
func (f *oauthFlow) post(c *http.Client, u string, form url.Values) (*oauthReply, string) {
	f.b.t.Helper()
	res, err := c.PostForm(u, form)
	return readReply(f.b.t, res, err)
}

// authorize starts an authorization in the browser and returns the consent page's address.
func (f *oauthFlow) authorize(state string, opts ...oauth2.AuthCodeOption) string {
	f.b.t.Helper()
	res, body := f.get(f.cfg.AuthCodeURL(state, opts...))
	require.Equal(f.b.t, http.StatusFound, res.StatusCode, body)
	loc := res.Header.Get("Location")
	require.True(f.b.t, strings.HasPrefix(loc, "/oauth/consent?id=oar_"), loc)
	return loc
}

// answer posts the consent form and returns where the browser is sent.
func (f *oauthFlow) answer(consent, decision string, scopes ...string) string {
	f.b.t.Helper()
	u, err := url.Parse(consent)
	require.NoError(f.b.t, err)
	form := url.Values{"id": {u.Query().Get("id")}, "decision": {decision}, "scope": scopes}
	res, _ := f.post(f.browser, publicURL+"/oauth/consent", form)
	require.Equal(f.b.t, http.StatusSeeOther, res.StatusCode)
	return res.Header.Get("Location")
}

// code follows Allow's redirect through the callback and returns the code the application gets.
func (f *oauthFlow) code(next, state string) string {
	f.b.t.Helper()
	res, body := f.get(next)
	require.Equal(f.b.t, http.StatusFound, res.StatusCode, body)
	back, err := url.Parse(res.Header.Get("Location"))
	require.NoError(f.b.t, err)
	require.Equal(f.b.t, "127.0.0.1:7777", back.Host)
	require.Equal(f.b.t, state, back.Query().Get("state"))
	require.NotEmpty(f.b.t, back.Query().Get("code"), back.String())
	return back.Query().Get("code")
}

// connect runs the whole flow, allowing scopes, and returns the tokens.
func (f *oauthFlow) connect(scopes ...string) *oauth2.Token {
	f.b.t.Helper()
	verifier := oauth2.GenerateVerifier()
	consent := f.authorize("st4te", oauth2.S256ChallengeOption(verifier))
	code := f.code(f.answer(consent, "allow", scopes...), "st4te")
	tok, err := f.cfg.Exchange(f.ctx, code, oauth2.VerifierOption(verifier))
	require.NoError(f.b.t, err)
	return tok
}

// refresh posts a refresh grant and returns the status and body.
func (f *oauthFlow) refresh(refreshToken string) (int, map[string]any) {
	f.b.t.Helper()
	res, body := f.post(f.app, publicURL+"/oauth/token", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {refreshToken}, "client_id": {f.clientID}})
	var out map[string]any
	require.NoError(f.b.t, json.Unmarshal([]byte(body), &out))
	return res.StatusCode, out
}

// setupOAuth is a bundle with an owner of acme, signed in, and acme's event.
func setupOAuth(t *testing.T) (*testBundle, string) {
	b := setup(t)
	b.addMember(b.acmeOrg, "owner@acme.test", organizationmember.RoleOwner)
	b.createEvent(b.acme, "Acme Summit")
	cookie := b.signIn("owner@acme.test")
	return b, cookie
}

func TestOAuthFlow(t *testing.T) {
	t.Parallel()
	b, cookie := setupOAuth(t)
	f := b.newOAuthFlow(cookie, "read", "write")

	t.Run("Metadata", func(t *testing.T) {
		for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
			r := b.must(http.StatusOK, http.MethodGet, path, "", nil).Obj()
			require.Equal(t, publicURL, r["issuer"])
			require.Equal(t, publicURL+"/oauth/register", r["registration_endpoint"])
			require.Equal(t, publicURL+"/oauth/revoke", r["revocation_endpoint"])
			require.Equal(t, []any{"S256"}, r["code_challenge_methods_supported"])
			require.Equal(t, []any{"read", "write", "send_mail"}, r["scopes_supported"])
			require.Equal(t, []any{"none"}, r["token_endpoint_auth_methods_supported"])
			require.Equal(t, []any{"authorization_code", "refresh_token"}, r["grant_types_supported"])
		}
	})

	t.Run("ConsentNeedsSignIn", func(t *testing.T) {
		consent := f.authorize("x", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
		anon := &oauthFlow{b: b, browser: &http.Client{Transport: routerTransport{h: b.handler, remote: "198.51.100.7:1"}, CheckRedirect: noRedirects}}
		res, _ := anon.get(publicURL + consent)
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		require.Equal(t, "/auth/signin?next="+url.QueryEscape(consent), res.Header.Get("Location"))

		res, body := f.get(publicURL + consent)
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Contains(t, body, `id="client-name">Claude<`)
		require.Contains(t, body, "Podium has not checked it")
		require.Contains(t, body, "127.0.0.1:7777")
		require.Contains(t, body, `value="write" checked`)
		require.Contains(t, body, `value="send_mail" disabled`)
		require.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'self' http://127.0.0.1:7777;")
	})

	t.Run("NoScopeAsksRead", func(t *testing.T) {
		cfg := *f.cfg
		cfg.Scopes = nil
		res, body := f.get(cfg.AuthCodeURL("n", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		require.Equal(t, http.StatusFound, res.StatusCode, body)
		res, body = f.get(publicURL + res.Header.Get("Location"))
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Contains(t, body, `value="write" disabled`)
	})

	t.Run("Deny", func(t *testing.T) {
		consent := f.authorize("den", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
		back, err := url.Parse(f.answer(consent, "deny"))
		require.NoError(t, err)
		require.Equal(t, "127.0.0.1:7777", back.Host)
		require.Equal(t, "access_denied", back.Query().Get("error"))
		require.Equal(t, "den", back.Query().Get("state"))
	})

	t.Run("ActsForThePerson", func(t *testing.T) {
		tok := f.connect("write")
		require.NotEmpty(t, tok.RefreshToken)
		r := b.must(http.StatusOK, http.MethodGet, "/api/v1/events", tok.AccessToken, nil)
		require.Contains(t, r.Raw, "Acme Summit")
		// GraphQL too, as the person.
		r = b.must(http.StatusOK, http.MethodPost, "/graphql", tok.AccessToken, map[string]any{"query": `{ events { totalCount } }`})
		require.Contains(t, r.Raw, `"totalCount":1`)

		// Refresh rotates: a new pair, and the old refresh token is refused afterwards — its reuse
		// revokes the grant, ending the new tokens too.
		status, fresh := f.refresh(tok.RefreshToken)
		require.Equal(t, http.StatusOK, status, fresh)
		require.NotEqual(t, tok.RefreshToken, fresh["refresh_token"])
		newAccess := fresh["access_token"].(string)
		b.must(http.StatusOK, http.MethodGet, "/api/v1/events", newAccess, nil)
		status, again := f.refresh(tok.RefreshToken)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", again["error"])
		b.requireError(b.do(http.MethodGet, "/api/v1/events", newAccess, nil), http.StatusUnauthorized, "invalid_api_key")
		status, _ = f.refresh(fresh["refresh_token"].(string))
		require.Equal(t, http.StatusBadRequest, status)
		g, err := b.db.Ent.OAuthGrant.Query().Where(oauthgrant.ClientID(f.clientID)).Order(oauthgrant.ByCreatedAt()).All(b.sys())
		require.NoError(t, err)
		require.NotNil(t, g[len(g)-1].RevokedAt)
	})

	t.Run("ChoosesOrganization", func(t *testing.T) {
		// A person in two organizations acts for the first they joined, or the one
		// Podium-Organization names, over REST and GraphQL alike.
		u, err := b.db.Ent.User.Query().Where(user.Email("owner@acme.test")).Only(b.sys())
		require.NoError(t, err)
		require.NoError(t, b.db.Ent.OrganizationMember.Create().SetOrganizationID(b.globexOrg).SetUserID(u.ID).
			SetRole(organizationmember.RoleMember).Exec(b.sys()))
		b.createEvent(b.globex, "Globex Days")
		tok := f.connect()
		for org, want := range map[string]string{"": "Acme Summit", b.acmeOrg: "Acme Summit", b.globexOrg: "Globex Days"} {
			req := httptest.NewRequest(http.MethodGet, "/api/v1/events", nil)
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			req.Header.Set("Podium-Organization", org)
			r := b.send(req)
			require.Equal(t, http.StatusOK, r.Status, r.Raw)
			require.Contains(t, r.Raw, want)
			req = httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ events { edges { node { name } } } }"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			req.Header.Set("Podium-Organization", org)
			r = b.send(req)
			require.Equal(t, http.StatusOK, r.Status, r.Raw)
			require.Contains(t, r.Raw, want, org)
		}
	})

	t.Run("Revocation", func(t *testing.T) {
		tok := f.connect()
		b.must(http.StatusOK, http.MethodGet, "/api/v1/events", tok.AccessToken, nil)
		res, _ := f.post(f.app, publicURL+"/oauth/revoke", url.Values{"token": {tok.AccessToken}, "client_id": {f.clientID}})
		require.Equal(t, http.StatusOK, res.StatusCode)
		b.requireError(b.do(http.MethodGet, "/api/v1/events", tok.AccessToken, nil), http.StatusUnauthorized, "invalid_api_key")
		// Its refresh token went with it.
		status, _ := f.refresh(tok.RefreshToken)
		require.Equal(t, http.StatusBadRequest, status)
	})

	t.Run("ConnectedApps", func(t *testing.T) {
		tok := f.connect("write")
		b.must(http.StatusOK, http.MethodGet, "/api/v1/events", tok.AccessToken, nil)

		// The person's account lists it, and so does GraphQL, newest first.
		res, body := f.get(publicURL + "/me")
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Contains(t, body, `id="connected-apps"`)
		require.Contains(t, body, "Claude")
		r := b.gqlCookie(cookie, `{ myConnectedApps { id clientId name scopes createdAt lastUsedAt } }`, nil)
		require.Empty(t, r.Errors, r.Raw)
		apps := r.Data["myConnectedApps"].([]any)
		app := apps[0].(map[string]any)
		require.Equal(t, f.clientID, app["clientId"])
		require.Equal(t, "Claude", app["name"])
		require.Equal(t, []any{"read", "write"}, app["scopes"])
		require.NotNil(t, app["lastUsedAt"])

		// Neither the application nor an API key sees or revokes them.
		r = b.gql(tok.AccessToken, `{ myConnectedApps { id } }`, nil)
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
		r = b.gql(tok.AccessToken, `mutation { revokeMyConnectedApp(id: "`+app["id"].(string)+`") { id } }`, nil)
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
		r = b.gql(b.acme, `{ myConnectedApps { id } }`, nil)
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
		r = b.gqlCookie(cookie, `mutation { revokeMyConnectedApp(id: "ogr_01jd3k2m9q8r7s6t5v4w3x2y1z") { id } }`, nil)
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)

		// Revoke from /me: its access ends at once.
		res, _ = f.post(f.browser, publicURL+"/me/connected-apps/"+app["id"].(string)+"/revoke", nil)
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		require.Equal(t, "/me?revoked=1", res.Header.Get("Location"))
		b.requireError(b.do(http.MethodGet, "/api/v1/events", tok.AccessToken, nil), http.StatusUnauthorized, "invalid_api_key")
		status, _ := f.refresh(tok.RefreshToken)
		require.Equal(t, http.StatusBadRequest, status)
		r = b.gqlCookie(cookie, `{ myConnectedApps { id } }`, nil)
		require.NotContains(t, r.Raw, app["id"])
	})

	t.Run("ReadOnlyGrantWritesNothing", func(t *testing.T) {
		tok := f.connect() // write is asked for, and unchecked: read only
		r := b.do(http.MethodPost, "/api/v1/events", tok.AccessToken, map[string]any{
			"name": "Sneaky", "type": "conference", "timezone": "Europe/Berlin",
			"startsAt": "2027-09-10T09:00:00.000Z", "endsAt": "2027-09-12T17:00:00.000Z"})
		b.requireError(r, http.StatusForbidden, "insufficient_scope")
		require.Equal(t, 1, b.eventsCount(b.acmeOrg))
	})
}

func TestOAuthHostile(t *testing.T) {
	t.Parallel()
	b, cookie := setupOAuth(t)
	f := b.newOAuthFlow(cookie, "read")

	t.Run("RedirectURIs", func(t *testing.T) {
		for _, uri := range []string{
			"http://127.0.0.1:7777/other",          // not registered
			"http://127.0.0.1:7777/callback/evil",  // prefix-extended
			"http://127.0.0.1:7777/callbackx",      // prefix-extended
			"http://127.0.0.1:7777/callback#frag",  // with a fragment
			"http://127.0.0.1:7777/callback?x=1",   // another query
			"https://evil.example/callback",        // another site
			"javascript:alert(1)//127.0.0.1:7777/", // another scheme
		} {
			cfg := *f.cfg
			cfg.RedirectURL = uri
			res, body := f.get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
			require.NotEqual(t, http.StatusFound, res.StatusCode, "%s: %s", uri, res.Header.Get("Location"))
			require.Empty(t, res.Header.Get("Location"), uri)
			require.NotContains(t, body, "code=", uri)
		}
	})

	t.Run("Registration", func(t *testing.T) {
		for uri, code := range map[string]string{
			"https://app.example/cb#x":         "invalid_redirect_uri",
			"javascript:alert(1)":              "invalid_redirect_uri",
			"https://user:pw@app.example/cb":   "invalid_redirect_uri",
			"http://app.example/cb":            "invalid_redirect_uri",
			"ftp://app.example/cb":             "invalid_redirect_uri",
			"com.example.app:/cb":              "invalid_redirect_uri",
			"http://localhost.evil.example/cb": "invalid_redirect_uri",
		} {
			status, out := f.register(map[string]any{"client_name": "X", "redirect_uris": []string{uri}})
			require.Equal(t, http.StatusBadRequest, status, uri)
			require.Equal(t, code, out["error"], uri)
		}
		status, out := f.register(map[string]any{"client_name": "X", "redirect_uris": []string{"https://app.example/cb"},
			"token_endpoint_auth_method": "client_secret_basic"})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_client_metadata", out["error"])
		status, out = f.register(map[string]any{"client_name": "Local", "redirect_uris": []string{"http://[::1]:9/cb", "http://localhost/cb", "https://app.example/cb"}})
		require.Equal(t, http.StatusCreated, status, out)
		require.Equal(t, "none", out["token_endpoint_auth_method"])
		require.Empty(t, out["client_secret"])
	})

	t.Run("PKCE", func(t *testing.T) {
		// plain and a missing challenge are refused at the authorization request, before consent.
		for name, opts := range map[string][]oauth2.AuthCodeOption{
			"plain":    {oauth2.SetAuthURLParam("code_challenge", strings.Repeat("a", 43)), oauth2.SetAuthURLParam("code_challenge_method", "plain")},
			"missing":  nil,
			"noMethod": {oauth2.SetAuthURLParam("code_challenge", strings.Repeat("a", 43))},
		} {
			res, _ := f.get(f.cfg.AuthCodeURL("p", opts...))
			require.Equal(t, http.StatusFound, res.StatusCode, name)
			back, err := url.Parse(res.Header.Get("Location"))
			require.NoError(t, err)
			require.Equal(t, "127.0.0.1:7777", back.Host, name)
			require.Equal(t, "invalid_request", back.Query().Get("error"), name)
			require.Empty(t, back.Query().Get("code"), name)
		}

		// A wrong verifier gets no token.
		verifier := oauth2.GenerateVerifier()
		code := f.code(f.answer(f.authorize("w", oauth2.S256ChallengeOption(verifier)), "allow"), "w")
		_, err := f.cfg.Exchange(f.ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
		require.Error(t, err)
		_, err = f.cfg.Exchange(f.ctx, code)
		require.Error(t, err)
		// The right one still does, once.
		_, err = f.cfg.Exchange(f.ctx, code, oauth2.VerifierOption(verifier))
		require.NoError(t, err)
	})

	t.Run("CodeReplay", func(t *testing.T) {
		verifier := oauth2.GenerateVerifier()
		code := f.code(f.answer(f.authorize("r", oauth2.S256ChallengeOption(verifier)), "allow"), "r")
		tok, err := f.cfg.Exchange(f.ctx, code, oauth2.VerifierOption(verifier))
		require.NoError(t, err)
		b.must(http.StatusOK, http.MethodGet, "/api/v1/events", tok.AccessToken, nil)
		_, err = f.cfg.Exchange(f.ctx, code, oauth2.VerifierOption(verifier))
		require.Error(t, err)
		// The second exchange revoked the grant: the first exchange's tokens end too.
		b.requireError(b.do(http.MethodGet, "/api/v1/events", tok.AccessToken, nil), http.StatusUnauthorized, "invalid_api_key")
		status, _ := f.refresh(tok.RefreshToken)
		require.Equal(t, http.StatusBadRequest, status)
	})

	t.Run("CallbackBeforeConsent", func(t *testing.T) {
		consent := f.authorize("c", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
		u, _ := url.Parse(consent)
		res, _ := f.get(publicURL + "/oauth/authorize/callback?id=" + u.Query().Get("id"))
		back, err := url.Parse(res.Header.Get("Location"))
		require.NoError(t, err)
		require.Empty(t, back.Query().Get("code"))
	})

	t.Run("RegistrationFlood", func(t *testing.T) {
		flood := &oauthFlow{b: b, app: &http.Client{Transport: routerTransport{h: b.handler, remote: "203.0.113.5:1234"}}}
		meta := map[string]any{"client_name": "Flood", "redirect_uris": []string{"https://app.example/cb"}}
		for i := range 20 {
			status, out := flood.register(meta)
			require.Equal(t, http.StatusCreated, status, "registration %d: %v", i, out)
		}
		// The same /24 is refused; another network is not.
		flood.app.Transport = routerTransport{h: b.handler, remote: "203.0.113.77:1234"}
		status, _ := flood.register(meta)
		require.Equal(t, http.StatusTooManyRequests, status)
		flood.app.Transport = routerTransport{h: b.handler, remote: "203.0.114.5:1234"}
		status, _ = flood.register(meta)
		require.Equal(t, http.StatusCreated, status)
	})

	t.Run("ConsentFromAnotherSite", func(t *testing.T) {
		consent := f.authorize("x", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
		u, _ := url.Parse(consent)
		req := httptest.NewRequest(http.MethodPost, "/oauth/consent", strings.NewReader(url.Values{
			"id": {u.Query().Get("id")}, "decision": {"allow"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		rec := httptest.NewRecorder()
		b.handler.ServeHTTP(rec, req)
		require.Equal(t, http.StatusForbidden, rec.Code)
		n, err := b.db.Ent.OAuthRequest.Query().Where(oauthrequest.ID(u.Query().Get("id")), oauthrequest.GrantIDNotNil()).Count(b.sys())
		require.NoError(t, err)
		require.Zero(t, n)
	})

	t.Run("UnknownRequest", func(t *testing.T) {
		res, body := f.get(publicURL + "/oauth/consent?id=oar_01jd3k2m9q8r7s6t5v4w3x2y1z")
		require.Equal(t, http.StatusNotFound, res.StatusCode)
		require.Contains(t, body, "start again from the application")
		res, _ = f.post(f.browser, publicURL+"/oauth/consent", url.Values{"id": {"oar_01jd3k2m9q8r7s6t5v4w3x2y1z"}, "decision": {"allow"}})
		require.Equal(t, http.StatusNotFound, res.StatusCode)
	})

	t.Run("ConcurrentRefresh", func(t *testing.T) {
		tok := f.connect()
		const n = 4
		statuses := make(chan int, n)
		for range n {
			go func() {
				res, err := f.app.PostForm(publicURL+"/oauth/token", url.Values{"grant_type": {"refresh_token"},
					"refresh_token": {tok.RefreshToken}, "client_id": {f.clientID}})
				if err != nil {
					statuses <- 0
					return
				}
				_ = res.Body.Close()
				statuses <- res.StatusCode
			}()
		}
		ok := 0
		for range n {
			if <-statuses == http.StatusOK {
				ok++
			}
		}
		// One use rotates it; any other is a reuse, which revokes the grant.
		require.LessOrEqual(t, ok, 1)
		g, err := b.db.Ent.OAuthGrant.Query().Where(oauthgrant.ClientID(f.clientID)).Order(oauthgrant.ByCreatedAt()).All(b.sys())
		require.NoError(t, err)
		require.NotNil(t, g[len(g)-1].RevokedAt)
	})

	t.Run("UnusedClientsExpire", func(t *testing.T) {
		old := time.Now().Add(-25 * time.Hour)
		unused, err := b.db.Ent.OAuthClient.Create().SetName("Abandoned").SetRedirectUris([]string{"https://a.example/cb"}).
			SetCreatedAt(old).Save(b.sys())
		require.NoError(t, err)
		used, err := b.db.Ent.OAuthClient.Create().SetName("Used").SetRedirectUris([]string{"https://a.example/cb"}).
			SetCreatedAt(old).SetLastUsedAt(old).Save(b.sys())
		require.NoError(t, err)
		fresh, err := b.db.Ent.OAuthClient.Create().SetName("Fresh").SetRedirectUris([]string{"https://a.example/cb"}).Save(b.sys())
		require.NoError(t, err)
		status, _ := f.register(map[string]any{"client_name": "Next", "redirect_uris": []string{"https://a.example/cb"}})
		require.Equal(t, http.StatusCreated, status)
		for id, kept := range map[string]bool{unused.ID: false, used.ID: true, fresh.ID: true} {
			n, err := b.db.Ent.OAuthClient.Query().Where(oauthclient.ID(id)).Count(b.sys())
			require.NoError(t, err)
			require.Equal(t, kept, n == 1, id)
		}
	})

	t.Run("ForgedTokens", func(t *testing.T) {
		forged := []string{"garbage", "pdr_" + strings.Repeat("A", 43), strings.Repeat("A", 80)}
		// Random values of a token's length: each decrypts to noise, sometimes with a colon in it.
		for i := range 64 {
			raw := make([]byte, 40+i%24)
			_, _ = rand.Read(raw)
			forged = append(forged, base64.RawURLEncoding.EncodeToString(raw))
		}
		for _, tok := range forged {
			b.requireError(b.do(http.MethodGet, "/api/v1/events", tok, nil), http.StatusUnauthorized, "invalid_api_key")
		}
	})
}

// TestOAuthAcrossProcesses: a second server process on the same database accepts the first's
// tokens and refreshes them, since both read their keys from server_keys.
func TestOAuthAcrossProcesses(t *testing.T) {
	t.Parallel()
	b, cookie := setupOAuth(t)
	f := b.newOAuthFlow(cookie, "read")
	tok := f.connect()

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	other := rest.NewHandler(rest.Options{DB: b.db, Ops: b.res.Ops, Log: log,
		GraphQL: graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: log})})
	req := httptest.NewRequest(http.MethodGet, "/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	rec := httptest.NewRecorder()
	other.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), "Acme Summit")

	f.app.Transport = routerTransport{h: other, remote: "192.0.2.10:40000"}
	status, fresh := f.refresh(tok.RefreshToken)
	require.Equal(t, http.StatusOK, status, fresh)
	b.must(http.StatusOK, http.MethodGet, "/api/v1/events", fresh["access_token"].(string), nil)
}

// TestOAuthSpeaker: a person of no organization (a speaker) connects an application, which acts
// as them, and revokes it over GraphQL.
func TestOAuthSpeaker(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := b.createEvent(b.acme, "Acme Summit")
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+ev["id"].(string)+"/speakers", b.acme, speakerBody("ada@example.test"))
	cookie := b.signIn("ada@example.test")
	f := b.newOAuthFlow(cookie, "read", "write")
	tok := f.connect("write")

	// The organization's list is refused as it is to the speaker, not as an unknown token.
	b.requireError(b.do(http.MethodGet, "/api/v1/events", tok.AccessToken, nil), http.StatusForbidden, "forbidden")
	r := b.gql(tok.AccessToken, `{ mySpeaking { __typename } }`, nil)
	require.Empty(t, r.Errors, r.Raw)

	r = b.gqlCookie(cookie, `{ myConnectedApps { id } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	id := r.Data["myConnectedApps"].([]any)[0].(map[string]any)["id"].(string)
	r = b.gqlCookie(cookie, `mutation { revokeMyConnectedApp(id: "`+id+`") { id } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	b.requireError(b.do(http.MethodGet, "/api/v1/events", tok.AccessToken, nil), http.StatusUnauthorized, "invalid_api_key")
}
