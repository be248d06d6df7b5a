package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/browsersession"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/ent/signintoken"
	"github.com/podium/podium/ent/user"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/access/secret"
	"github.com/podium/podium/jobs"
)

// The cookie of a bundle: its PUBLIC_URL is https, so the cookie is Secure and __Host- named.
const sessionCookie = "__Host-podium_session"

var tokenInLink = regexp.MustCompile(`/auth/link\?token=([A-Za-z0-9_-]+)`)

// requestLink posts a sign-in request as a same-origin form and returns the response.
func (b *testBundle) requestLink(addr, next string) *httptest.ResponseRecorder {
	b.t.Helper()
	form := url.Values{"email": {addr}, "next": {next}}
	req := httptest.NewRequest(http.MethodPost, "/auth/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.sendRaw(req)
}

// linkFor waits for the sign-in email to addr (the link is prepared after the answer) and
// returns a token for its link, minted as the delivery worker mints it for the message it sends:
// the email log holds a placeholder, never a token.
func (b *testBundle) linkFor(addr string, nth int) string {
	b.t.Helper()
	var row *ent.EmailLog
	require.Eventually(b.t, func() bool {
		rows, err := b.db.Ent.EmailLog.Query().
			Where(emaillog.Recipient(addr), emaillog.TypeEQ(emaillog.TypeMagicLink)).
			Order(emaillog.ByCreatedAt()).All(b.sys())
		require.NoError(b.t, err)
		if len(rows) < nth {
			return false
		}
		row = rows[nth-1]
		return true
	}, 10*time.Second, 20*time.Millisecond, "no sign-in email to %s", addr)
	require.Contains(b.t, row.Body, "token="+secret.RequestedPlaceholder+"&", "the email log holds a token")
	m := &jobs.Message{To: row.Recipient, Text: row.Body, HTML: row.HTMLBody}
	require.NoError(b.t, jobs.MintSignInLink(b.sys(), b.db.System, m))
	token := tokenInLink.FindStringSubmatch(m.Text)
	require.NotNil(b.t, token, m.Text)
	return token[1]
}

// follow posts the confirm form of a link, with a cookie when given, and returns the response.
func (b *testBundle) follow(token, cookie string) *httptest.ResponseRecorder {
	b.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/auth/link", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	}
	return b.sendRaw(req)
}

// cookieOf returns the session cookie a response sets.
func cookieOf(t *testing.T, rec *httptest.ResponseRecorder) *http.Cookie {
	t.Helper()
	for _, c := range rec.Result().Cookies() {
		if c.Name == sessionCookie {
			return c
		}
	}
	t.Fatalf("no session cookie in %v", rec.Header())
	return nil
}

// signIn signs addr in from the email and returns the session cookie's value.
func (b *testBundle) signIn(addr string) string {
	b.t.Helper()
	n, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient(addr), emaillog.TypeEQ(emaillog.TypeMagicLink)).Count(b.sys())
	require.NoError(b.t, err)
	require.Equal(b.t, http.StatusAccepted, b.requestLink(addr, "").Code)
	rec := b.follow(b.linkFor(addr, n+1), "")
	require.Equal(b.t, http.StatusSeeOther, rec.Code, rec.Body.String())
	return cookieOf(b.t, rec).Value
}

// gqlCookie posts a GraphQL document with a session cookie, from the same origin.
func (b *testBundle) gqlCookie(cookie, query string, header http.Header) gqlResponse {
	b.t.Helper()
	raw, err := json.Marshal(map[string]string{"query": query})
	require.NoError(b.t, err)
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	r := b.send(req)
	out := gqlResponse{Status: r.Status, Raw: r.Raw}
	require.NoError(b.t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
	return out
}

// addMember makes addr a member of the organization org with role.
func (b *testBundle) addMember(org, addr string, role organizationmember.Role) string {
	b.t.Helper()
	u, err := b.db.Ent.User.Create().SetEmail(addr).SetName("Member " + addr).Save(b.sys())
	require.NoError(b.t, err)
	require.NoError(b.t, b.db.Ent.OrganizationMember.Create().SetOrganizationID(org).SetUserID(u.ID).
		SetRole(role).Exec(b.sys()))
	return u.ID
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()

	t.Run("SpeakerFromEmailLink", func(t *testing.T) {
		rec := b.requestLink("ADA@example.test", "/portal")
		require.Equal(t, http.StatusAccepted, rec.Code)
		token := b.linkFor("ada@example.test", 1)
		require.Len(t, token, 43)

		// The token is stored only as its hash.
		tokens, err := b.db.Ent.SignInToken.Query().Where(signintoken.Email("ada@example.test")).All(b.sys())
		require.NoError(t, err)
		require.Len(t, tokens, 1)
		require.NotEqual(t, token, tokens[0].Hash)
		require.NotContains(t, tokens[0].Hash, token)
		require.WithinDuration(t, time.Now().Add(15*time.Minute), tokens[0].ExpiresAt, time.Minute)

		// Opening the link (a GET, as mail scanners do) shows a button and uses nothing up.
		page := b.sendRaw(httptest.NewRequest(http.MethodGet, "/auth/link?token="+token, nil))
		require.Equal(t, http.StatusOK, page.Code)
		require.Contains(t, page.Body.String(), `name="token" value="`+token+`"`)
		require.Empty(t, page.Result().Cookies())
		require.Equal(t, "no-referrer", page.Header().Get("Referrer-Policy"))

		rec = b.follow(token, "")
		require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
		require.Equal(t, "/portal", rec.Header().Get("Location"))
		c := cookieOf(t, rec)
		require.True(t, c.HttpOnly)
		require.True(t, c.Secure)
		require.Equal(t, http.SameSiteLaxMode, c.SameSite)
		require.Equal(t, "/", c.Path)

		// The user is created on first sign-in, named after the contact; the session is a row
		// holding the cookie's hash, not the cookie.
		u, err := b.db.Ent.User.Query().Where(user.Email("ada@example.test")).Only(b.sys())
		require.NoError(t, err)
		require.Equal(t, "Ada Lovelace", u.Name)
		s, err := b.db.Ent.BrowserSession.Query().Where(browsersession.UserID(u.ID)).Only(b.sys())
		require.NoError(t, err)
		require.NotContains(t, s.Hash, c.Value)

		me := httptest.NewRequest(http.MethodGet, "/me", nil)
		me.AddCookie(c)
		got := b.sendRaw(me)
		require.Equal(t, http.StatusOK, got.Code)
		require.Contains(t, got.Body.String(), "ada@example.test")
		require.Contains(t, got.Body.String(), "Speaker at World")
	})

	t.Run("UnknownAndKnownAnswerAlike", func(t *testing.T) {
		known := b.requestLink("grace@example.test", "")
		unknown := b.requestLink("nobody-here@example.test", "")
		malformed := b.requestLink("not an address", "")
		// The answers differ only by the address they repeat.
		without := func(rec *httptest.ResponseRecorder, addr string) string {
			return strings.ReplaceAll(rec.Body.String(), addr, "ADDRESS")
		}
		require.Equal(t, known.Code, unknown.Code)
		require.Equal(t, known.Code, malformed.Code)
		require.Equal(t, without(known, "grace@example.test"), without(unknown, "nobody-here@example.test"))
		require.Equal(t, without(known, "grace@example.test"), without(malformed, "not an address"))
		b.linkFor("grace@example.test", 1)
		// No answer waited for the lookup: each ran the same statements (the budgets'), so the
		// time to answer cannot depend on whether the address is known.
		answered, queries := 0, map[int]int{}
		logMu.Lock()
		logs := b.logs.String()
		logMu.Unlock()
		for _, line := range strings.Split(logs, "\n") {
			var entry struct {
				Route, Method string
				Queries       *int
			}
			if json.Unmarshal([]byte(line), &entry) != nil || entry.Route != "/auth/signin" || entry.Method != http.MethodPost {
				continue
			}
			require.NotNil(t, entry.Queries, line)
			queries[*entry.Queries]++
			answered++
		}
		require.GreaterOrEqual(t, answered, 3)
		require.Len(t, queries, 1, "answers ran different statements: %v", queries)
		n, err := b.db.Ent.SignInToken.Query().Where(signintoken.Email("nobody-here@example.test")).Count(b.sys())
		require.NoError(t, err)
		require.Zero(t, n)

		// JSON clients get the same answer whatever the address.
		for _, addr := range []string{"grace@example.test", "nobody@example.test"} {
			req := httptest.NewRequest(http.MethodPost, "/auth/signin", strings.NewReader(`{"email":"`+addr+`"}`))
			req.Header.Set("Content-Type", "application/json")
			rec := b.sendRaw(req)
			require.Equal(t, http.StatusAccepted, rec.Code)
			require.JSONEq(t, `{"status":"accepted","message":"If a speaker, reviewer or organizer of an event uses `+addr+
				`, a sign-in link is on its way to it. It works once, within 15 minutes."}`, rec.Body.String())
		}
	})

	t.Run("BadTokens", func(t *testing.T) {
		require.Equal(t, http.StatusAccepted, b.requestLink("alan@example.test", "").Code)
		token := b.linkFor("alan@example.test", 1)
		forged := strings.Repeat("A", 43)
		for name, tok := range map[string]string{
			"forged": forged, "truncated": token[:42], "extended": token + "A", "empty": "",
			"mangled": token[:42] + "!", "hash of it": strings.Repeat("0", 64),
		} {
			rec := b.follow(tok, "")
			require.Equal(t, http.StatusForbidden, rec.Code, name)
			require.Empty(t, rec.Result().Cookies(), name)
			require.Contains(t, rec.Body.String(), "invalid, expired or already used", name)
		}
		n, err := b.db.Ent.BrowserSession.Query().Count(b.sys())
		require.NoError(t, err)

		// The real one works once.
		require.Equal(t, http.StatusSeeOther, b.follow(token, "").Code)
		reused := b.follow(token, "")
		require.Equal(t, http.StatusForbidden, reused.Code)
		require.Empty(t, reused.Result().Cookies())
		m, err := b.db.Ent.BrowserSession.Query().Count(b.sys())
		require.NoError(t, err)
		require.Equal(t, n+1, m)
	})

	t.Run("ExpiredToken", func(t *testing.T) {
		require.Equal(t, http.StatusAccepted, b.requestLink("out@example.test", "").Code)
		token := b.linkFor("out@example.test", 1)
		_, err := b.db.System.Exec(b.sys(), `UPDATE sign_in_tokens SET expires_at = now() - interval '1 second' WHERE email = 'out@example.test'`)
		require.NoError(t, err)
		rec := b.follow(token, "")
		require.Equal(t, http.StatusForbidden, rec.Code)
		require.Empty(t, rec.Result().Cookies())
	})

	t.Run("OrganizersCannotReadSignInEmails", func(t *testing.T) {
		b.linkFor("ada@example.test", 1)
		row, err := b.db.Ent.EmailLog.Query().Where(emaillog.TypeEQ(emaillog.TypeMagicLink)).First(b.sys())
		require.NoError(t, err)
		list := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+row.EventID+"/emails", b.acme, nil)
		require.NotContains(t, list.Raw, "/auth/link")
		require.NotContains(t, list.Raw, row.ID)
		// By id, it answers as an id that names nothing.
		q := `query($id: ID!) { node(id: $id) { id ... on EmailLog { body } } }`
		r := b.gql(b.acme, q, map[string]any{"id": row.ID})
		require.Nil(t, r.Data["node"], r.Raw)
		require.NotContains(t, r.Raw, "/auth/link")
		none := b.gql(b.acme, q, map[string]any{"id": "eml_01jd3k2m9q8r7s6t5v4w3x2y1z"})
		require.Equal(t, none.Raw, r.Raw)
	})

	t.Run("NextStaysOnThisSite", func(t *testing.T) {
		for _, next := range []string{"https://evil.example/x", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"} {
			addr := "next" + itoa(len(next)) + "@example.test"
			b.speaker(w.base, "Next", "Person", addr)
			require.Equal(t, http.StatusAccepted, b.requestLink(addr, next).Code)
			rec := b.follow(b.linkFor(addr, 1), "")
			require.Equal(t, http.StatusSeeOther, rec.Code)
			require.Equal(t, "/", rec.Header().Get("Location"), next)
		}
	})
}

func TestSessions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()

	t.Run("FixationAndAnotherPersonsToken", func(t *testing.T) {
		// A session id planted in the browser (an attacker's own session, or a made-up value)
		// is replaced at sign-in, never adopted.
		planted := b.signIn("grace@example.test")
		require.Equal(t, http.StatusAccepted, b.requestLink("ada@example.test", "").Code)
		rec := b.follow(b.linkFor("ada@example.test", 1), planted)
		require.Equal(t, http.StatusSeeOther, rec.Code)
		fresh := cookieOf(t, rec).Value
		require.NotEqual(t, planted, fresh)
		// The planted session ended; the new one is Ada's, not Grace's.
		require.Equal(t, []string{"missing_api_key"}, b.gqlCookie(planted, `{ __typename }`, nil).Codes())
		me := httptest.NewRequest(http.MethodGet, "/me", nil)
		me.AddCookie(&http.Cookie{Name: sessionCookie, Value: fresh})
		body := b.sendRaw(me).Body.String()
		require.Contains(t, body, "ada@example.test")
		require.NotContains(t, body, "grace@example.test")

		madeUp := strings.Repeat("x", 43)
		require.Equal(t, http.StatusAccepted, b.requestLink("alan@example.test", "").Code)
		rec = b.follow(b.linkFor("alan@example.test", 1), madeUp)
		require.NotEqual(t, madeUp, cookieOf(t, rec).Value)
	})

	t.Run("SignOutAndEverywhere", func(t *testing.T) {
		one := b.signIn("out@example.test")
		two := b.signIn("out@example.test")
		require.NotEqual(t, one, two)
		require.Empty(t, b.gqlCookie(one, `{ __typename }`, nil).Errors)

		out := httptest.NewRequest(http.MethodPost, "/auth/signout", nil)
		out.Header.Set("Sec-Fetch-Site", "same-origin")
		out.AddCookie(&http.Cookie{Name: sessionCookie, Value: one})
		rec := b.sendRaw(out)
		require.Equal(t, http.StatusSeeOther, rec.Code)
		require.Negative(t, cookieOf(t, rec).MaxAge)
		require.Equal(t, []string{"missing_api_key"}, b.gqlCookie(one, `{ __typename }`, nil).Codes())
		require.Empty(t, b.gqlCookie(two, `{ __typename }`, nil).Errors)

		three := b.signIn("out@example.test")
		all := httptest.NewRequest(http.MethodPost, "/auth/signout-everywhere", nil)
		all.Header.Set("Sec-Fetch-Site", "same-origin")
		all.AddCookie(&http.Cookie{Name: sessionCookie, Value: three})
		require.Equal(t, http.StatusSeeOther, b.sendRaw(all).Code)
		require.Equal(t, []string{"missing_api_key"}, b.gqlCookie(two, `{ __typename }`, nil).Codes())
		require.Equal(t, []string{"missing_api_key"}, b.gqlCookie(three, `{ __typename }`, nil).Codes())
	})

	t.Run("IdleAndAbsoluteExpiry", func(t *testing.T) {
		idle := b.signIn("alan@example.test")
		_, err := b.db.System.Exec(b.sys(), `UPDATE browser_sessions SET last_seen_at = now() - interval '8 days'
			WHERE user_id = (SELECT id FROM users WHERE email = 'alan@example.test')`)
		require.NoError(t, err)
		require.Equal(t, []string{"missing_api_key"}, b.gqlCookie(idle, `{ __typename }`, nil).Codes())

		old := b.signIn("alan@example.test")
		_, err = b.db.System.Exec(b.sys(), `UPDATE browser_sessions SET expires_at = now() - interval '1 second'
			WHERE user_id = (SELECT id FROM users WHERE email = 'alan@example.test')`)
		require.NoError(t, err)
		require.Equal(t, []string{"missing_api_key"}, b.gqlCookie(old, `{ __typename }`, nil).Codes())
	})

	t.Run("CrossOriginWritesRefused", func(t *testing.T) {
		c := b.signIn("ada@example.test")
		evil := http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}
		r := b.gqlCookie(c, `mutation { __typename }`, evil)
		require.Equal(t, http.StatusForbidden, r.Status)
		require.Equal(t, []string{"forbidden"}, r.Codes())

		// Signing out, or in, from another site is refused too.
		req := httptest.NewRequest(http.MethodPost, "/auth/signout-everywhere", nil)
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: c})
		require.Equal(t, http.StatusForbidden, b.sendRaw(req).Code)
		require.Empty(t, b.gqlCookie(c, `{ __typename }`, nil).Errors)
		link := httptest.NewRequest(http.MethodPost, "/auth/signin", strings.NewReader("email=ada%40example.test"))
		link.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		link.Header.Set("Sec-Fetch-Site", "cross-site")
		require.Equal(t, http.StatusForbidden, b.sendRaw(link).Code)

		// An API key is not a cookie: integrators calling from anywhere are unchanged.
		key := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ __typename }"}`))
		key.Header.Set("Content-Type", "application/json")
		key.Header.Set("Authorization", "Bearer "+b.acme)
		key.Header.Set("Sec-Fetch-Site", "cross-site")
		key.Header.Set("Origin", "https://evil.example")
		require.Equal(t, http.StatusOK, b.sendRaw(key).Code)
	})

	t.Run("PeopleWithoutAdminRoleReachNoOperation", func(t *testing.T) {
		c := b.signIn("grace@example.test")
		r := b.gqlCookie(c, `{ events { totalCount } }`, nil)
		require.Equal(t, []string{"forbidden"}, r.Codes())
		require.NotContains(t, r.Raw, "World")
		r = b.gqlCookie(c, `{ node(id: "`+w.grace+`") { id } }`, nil)
		require.Equal(t, []string{"forbidden"}, r.Codes())
		require.NotContains(t, r.Raw, "Hopper")
	})

	t.Run("AdminActsForTheOrganization", func(t *testing.T) {
		b.addMember(b.acmeOrg, "boss@example.test", organizationmember.RoleAdmin)
		b.addMember(b.acmeOrg, "staff@example.test", organizationmember.RoleMember)
		b.addMember(b.globexOrg, "rival@example.test", organizationmember.RoleOwner)
		// The sign-in email is logged under an event of the organization (docs/people.md).
		b.createEvent(b.globex, "Globex Days")
		boss := b.signIn("boss@example.test")
		r := b.gqlCookie(boss, `{ events { totalCount } }`, nil)
		require.Empty(t, r.Errors, r.Raw)
		require.Equal(t, float64(2), r.Data["events"].(map[string]any)["totalCount"])

		// A member reads the organization and changes nothing.
		staff := b.signIn("staff@example.test")
		r = b.gqlCookie(staff, `{ events { totalCount } }`, nil)
		require.Empty(t, r.Errors, r.Raw)
		require.Equal(t, float64(2), r.Data["events"].(map[string]any)["totalCount"])
		r = b.gqlCookie(staff, `mutation { updateEvent(id: "`+w.event+`", input: {name: "Taken"}) { id } }`, nil)
		require.Equal(t, []string{"forbidden"}, r.Codes())
		ev, err := b.db.Ent.Event.Get(b.sys(), w.event)
		require.NoError(t, err)
		require.Equal(t, "World", ev.Name)

		rival := b.signIn("rival@example.test")
		r = b.gqlCookie(rival, `{ events { totalCount } }`, nil)
		require.Empty(t, r.Errors, r.Raw)
		require.Equal(t, float64(1), r.Data["events"].(map[string]any)["totalCount"])
		require.NotContains(t, r.Raw, "World")
	})
}

func TestViewer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	const q = `{ viewer { kind organizationId apiKeyName email name memberships { organizationId role }
		eventRoles { eventId role } contacts { eventId contactId } } }`

	key := b.gqlOK(b.acme, q, nil)["viewer"].(map[string]any)
	require.Equal(t, "API_KEY", key["kind"])
	require.Equal(t, b.acmeOrg, key["organizationId"])
	require.Equal(t, "test", key["apiKeyName"])
	require.Nil(t, key["email"])

	// A speaker is their contacts; they are no member, so they act for no organization.
	ada := b.gqlCookie(b.signIn("ada@example.test"), q, nil)
	require.Empty(t, ada.Errors, ada.Raw)
	v := ada.Data["viewer"].(map[string]any)
	require.Equal(t, "PERSON", v["kind"])
	require.Equal(t, "ada@example.test", v["email"])
	require.Equal(t, "Ada Lovelace", v["name"])
	require.Nil(t, v["organizationId"])
	require.Equal(t, []any{map[string]any{"eventId": w.event, "contactId": w.ada}}, v["contacts"])
	require.Empty(t, v["memberships"])

	// An owner of two organizations chooses one; the default is the first joined.
	b.addMember(b.acmeOrg, "both@example.test", organizationmember.RoleOwner)
	u, err := b.db.Ent.User.Query().Where(user.Email("both@example.test")).Only(b.sys())
	require.NoError(t, err)
	require.NoError(t, b.db.Ent.OrganizationMember.Create().SetOrganizationID(b.globexOrg).SetUserID(u.ID).
		SetRole(organizationmember.RoleMember).Exec(b.sys()))
	both := b.signIn("both@example.test")
	v = b.gqlCookie(both, q, nil).Data["viewer"].(map[string]any)
	require.Equal(t, b.acmeOrg, v["organizationId"])
	require.Len(t, v["memberships"], 2)
	r := b.gqlCookie(both, q, http.Header{"Podium-Organization": {b.globexOrg}})
	require.Equal(t, b.globexOrg, r.Data["viewer"].(map[string]any)["organizationId"])
	// An organization they do not belong to gives no scope at all, not another's.
	r = b.gqlCookie(both, `{ events { totalCount } }`, http.Header{"Podium-Organization": {"org_01jd3k2m9q8r7s6t5v4w3x2y1z"}})
	require.Equal(t, []string{"forbidden"}, r.Codes())

	// Anonymous callers are refused as before.
	require.Equal(t, []string{"missing_api_key"}, b.gql("", q, nil).Codes())
}

func TestSignInRateLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)

	codes := map[int]int{}
	for range 7 {
		codes[b.requestLink("someone@example.test", "").Code]++
	}
	require.Equal(t, map[int]int{http.StatusAccepted: 5, http.StatusTooManyRequests: 2}, codes)

	// One client asking for many addresses is limited too (httptest's peer is one address).
	codes = map[int]int{}
	for i := range 20 {
		codes[b.requestLink("person"+itoa(i)+"@example.test", "").Code]++
	}
	require.Equal(t, 15, codes[http.StatusAccepted])
	require.Equal(t, 5, codes[http.StatusTooManyRequests])
}

func TestOrganizationInvitations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.world()
	const invite = `mutation($email: String!, $role: String!) {
		inviteOrganizationMember(input: {email: $email, role: $role}) { id email role status expiresAt } }`

	inv := b.gqlOK(b.acme, invite, map[string]any{"email": " Newbie@Example.test ", "role": "admin"})["inviteOrganizationMember"].(map[string]any)
	require.Equal(t, "newbie@example.test", inv["email"])
	require.Equal(t, "pending", inv["status"])
	// The invitation email leads to sign-in.
	sent, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("newbie@example.test")).Only(b.sys())
	require.NoError(t, err)
	require.Contains(t, sent.Body, "https://podium.example.test/auth/signin?next=/me")
	require.Contains(t, sent.Body, "as admin")

	// Nobody knew the address before; the invitation makes it known, and signing in accepts it.
	newbie := b.signIn("newbie@example.test")
	r := b.gqlCookie(newbie, `{ viewer { organizationId memberships { organizationId role } } events { totalCount } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, b.acmeOrg, r.Data["viewer"].(map[string]any)["organizationId"])
	require.Equal(t, []any{map[string]any{"organizationId": b.acmeOrg, "role": "admin"}}, r.Data["viewer"].(map[string]any)["memberships"])
	require.Equal(t, float64(2), r.Data["events"].(map[string]any)["totalCount"])
	got, err := b.db.Ent.OrganizationInvitation.Get(b.sys(), str(inv, "id"))
	require.NoError(t, err)
	require.Equal(t, "accepted", got.Status.String())

	// An admin invites admins and members, not owners; a member invites no one.
	r = b.gqlCookie(newbie, `mutation { inviteOrganizationMember(input: {email: "boss@example.test", role: "owner"}) { id } }`, nil)
	require.Equal(t, []string{"forbidden"}, r.Codes())
	r = b.gqlCookie(newbie, `mutation { inviteOrganizationMember(input: {email: "staff@example.test", role: "member"}) { id } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	staff := b.signIn("staff@example.test")
	r = b.gqlCookie(staff, `mutation { inviteOrganizationMember(input: {email: "x@example.test", role: "member"}) { id } }`, nil)
	require.Equal(t, []string{"forbidden"}, r.Codes())

	// Bad input is refused and writes nothing.
	for _, vars := range []map[string]any{{"email": "nope", "role": "member"}, {"email": "a@example.test", "role": "king"}} {
		require.Equal(t, []string{"invalid_input"}, b.gql(b.acme, invite, vars).Codes())
	}

	// An expired invitation is not accepted.
	b.gqlOK(b.acme, invite, map[string]any{"email": "late@example.test", "role": "member"})
	_, err = b.db.System.Exec(b.sys(), `UPDATE organization_invitations SET expires_at = now() - interval '1 second' WHERE email = 'late@example.test'`)
	require.NoError(t, err)
	// The endpoint prepares links in the background; the same step, called directly, is
	// finished when it returns.
	people := &access.People{DB: b.db, Outbox: b.res.Ops.Outbox}
	require.NoError(t, people.RequestLink(context.Background(), "late@example.test", ""))
	n, err := b.db.Ent.SignInToken.Query().Where(signintoken.Email("late@example.test")).Count(b.sys())
	require.NoError(t, err)
	require.Zero(t, n, "an expired invitation makes the address unknown")

	// Another organization's invitation grants nothing here.
	b.createEvent(b.globex, "Globex Days")
	b.gqlOK(b.globex, invite, map[string]any{"email": "rival@example.test", "role": "owner"})
	rival := b.signIn("rival@example.test")
	r = b.gqlCookie(rival, `{ events { edges { node { name } } } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	require.NotContains(t, r.Raw, "World")
	require.Contains(t, r.Raw, "Globex Days")
}

// TestEmailsLeadToSignIn: the email log holds invitations with a link whose token is a
// placeholder (the delivery worker mints the real one, see TestOneClickInvitation): followed from
// the log, it signs nobody in and lands on the sign-in page leading to the portal; a person who
// signs in lands there, and the reviewer on their desk.
func TestEmailsLeadToSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	b.must(http.StatusOK, http.MethodPost, w.base+"/speakers/invite", b.acme, map[string]any{"contactIds": []any{w.ada}})
	sent, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("ada@example.test")).Only(b.sys())
	require.NoError(t, err)
	m := regexp.MustCompile(`https://podium\.example\.test(/auth/link\?token=` + secret.Placeholder + `&next=%2Fportal)\s`).FindStringSubmatch(sent.Body)
	require.NotNil(t, m, sent.Body)

	// The logged link opens the confirm page; its button signs nobody in and shows the sign-in
	// form, still leading to the portal.
	page := b.sendRaw(httptest.NewRequest(http.MethodGet, m[1], nil))
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body.String(), `name="next" value="/portal"`)
	form := url.Values{"token": {secret.Placeholder}, "next": {"/portal"}}
	req := httptest.NewRequest(http.MethodPost, "/auth/link", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := b.sendRaw(req)
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.Empty(t, rec.Result().Cookies(), "no session")
	require.Contains(t, rec.Body.String(), `name="next" value="/portal"`)

	// Not signed in: the portal leads to sign-in, which brings the speaker back.
	rec = b.sendRaw(httptest.NewRequest(http.MethodGet, "/portal", nil))
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/auth/signin?next="+url.QueryEscape("/portal"), rec.Header().Get("Location"))
	require.Equal(t, http.StatusAccepted, b.requestLink("ada@example.test", "/portal").Code)
	rec = b.follow(b.linkFor("ada@example.test", 1), "")
	require.Equal(t, "/portal", rec.Header().Get("Location"))
	req = httptest.NewRequest(http.MethodGet, "/portal", nil)
	req.AddCookie(cookieOf(t, rec))
	landed := b.sendRaw(req)
	require.Equal(t, http.StatusOK, landed.Code)
	require.Contains(t, landed.Body.String(), "ada@example.test")
	require.Contains(t, landed.Body.String(), "Your speaker portal")

	// A reviewer's invitation leads to the round's address, which shows their reviews.
	round := str(roundOf(b.saveRound(w, roundBody("R", numericCriterion("Q", 1, 5, 1, true)))), "id")
	b.addReviewer(w, round, "rev@example.test", nil)
	inv, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("rev@example.test")).Only(b.sys())
	require.NoError(t, err)
	require.Contains(t, inv.Body, "next="+url.QueryEscape("/reviews/"+round))
	rec = b.sendRaw(httptest.NewRequest(http.MethodGet, "/reviews/"+round, nil))
	require.Equal(t, "/auth/signin?next="+url.QueryEscape("/reviews/"+round), rec.Header().Get("Location"))
	cookie := b.signIn("rev@example.test")
	req = httptest.NewRequest(http.MethodGet, "/reviews/"+round, nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	body := b.sendRaw(req).Body.String()
	require.Contains(t, body, "Your reviews")
	require.Contains(t, body, "no review assignments yet")
}
