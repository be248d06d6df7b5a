package rest_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/jobs/mailtest"
	"github.com/podium/podium/rest"
)

// TestSignInRedirects: a sign-in lands only on a path of this site. Every target a browser could
// read as another site — a control character or a backslash anywhere, raw or percent-encoded —
// lands on the home page instead, on every step that carries it (the sign-in form, the confirm
// page, the link itself).
func TestSignInRedirects(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()

	hostile := []string{
		"/\t/evil.example", "/%09/evil.example", "/%2509/evil.example", "/\n/evil.example", "/%0a/evil.example",
		"/\x00/evil.example", "/%00x", "/\\evil.example", "/%5cevil.example", "/x/%5C%5Cevil.example", "/ok\\x",
		"//evil.example", "https://evil.example/x", "javascript:alert(1)", "evil.example", "/\x7f/evil.example",
		"/" + strings.Repeat("a", 2048),
	}
	for _, next := range hostile {
		require.Equal(t, "/", access.SafeNext(next), "%q", next)
	}
	for _, next := range []string{"/portal", "/cfp/frm_1?x=1#y", "/reviews/rnd_1", "/a%20b", "/é"} {
		require.Equal(t, next, access.SafeNext(next))
	}

	for i, next := range hostile[:6] {
		addr := "redirect" + itoa(i) + "@example.test"
		b.speaker(w.base, "Red", "Irect", addr)
		require.Equal(t, http.StatusAccepted, b.requestLink(addr, next).Code)
		rec := b.follow(b.linkFor(addr, 1), "")
		require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
		require.Equal(t, "/", rec.Header().Get("Location"), "%q", next)

		page := b.sendRaw(httptest.NewRequest(http.MethodGet, "/auth/signin?next="+url.QueryEscape(next), nil))
		require.Contains(t, page.Body.String(), `name="next" value="/"`, "%q", next)
		page = b.sendRaw(httptest.NewRequest(http.MethodGet, "/auth/link?token=x&next="+url.QueryEscape(next), nil))
		require.Contains(t, page.Body.String(), `name="next" value="/"`, "%q", next)
	}
}

// TestSignInTokensNotStored: no copy of a sign-in email in the database signs anyone in. The
// email log keeps the link with a placeholder in place of the token, under the event of the place
// the person signs in for; the token is in the message delivered, and only its hash is stored.
func TestSignInTokensNotStored(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()

	require.Equal(t, http.StatusAccepted, b.requestLink("ada@example.test", "/portal").Code)
	m := b.mailTo("ada@example.test", 1)
	token := tokenInLink.FindStringSubmatch(m.Text)
	require.NotNil(t, token, m.Text)
	require.Len(t, token[1], 43)

	rows, err := b.db.Ent.EmailLog.Query().Where(emaillog.TypeEQ(emaillog.TypeMagicLink)).All(b.sys())
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.Equal(t, w.event, rows[0].EventID)
	for _, text := range []string{rows[0].Body, rows[0].HTMLBody, rows[0].Subject} {
		require.NotContains(t, text, token[1])
	}
	var inClear int
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT count(*) FROM email_log WHERE body LIKE '%' || $1 || '%'
		OR html_body LIKE '%' || $1 || '%'`, token[1]).Scan(&inClear))
	require.Zero(t, inClear)
	var jobs int
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT count(*) FROM river_job WHERE args::text LIKE '%' || $1 || '%'`,
		token[1]).Scan(&jobs))
	require.Zero(t, jobs)

	// The delivered link signs in, once, and lands where it was asked to.
	rec := b.follow(token[1], "")
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, "/portal", rec.Header().Get("Location"))
	require.Equal(t, http.StatusForbidden, b.follow(token[1], "").Code)
}

// mailTo waits until the sink holds n messages to addr and returns the n-th.
func (b *testBundle) mailTo(addr string, n int) mailtest.Message {
	b.t.Helper()
	var got []mailtest.Message
	require.Eventually(b.t, func() bool {
		got = got[:0]
		for _, m := range b.sink.Messages() {
			if len(m.To) == 1 && m.To[0] == addr {
				got = append(got, m)
			}
		}
		return len(got) >= n
	}, 15*time.Second, 20*time.Millisecond, "fewer than %d messages to %s", n, addr)
	return got[n-1]
}

// peerClient is an HTTP client whose connections come from the loopback address 127.0.0.n: to
// the server, a client at another address, as a spoofed or distributed attacker would be.
func peerClient(n int) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(n))}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// postSignIn posts a sign-in request to a server from a client, as a same-origin form.
func postSignIn(t *testing.T, c *http.Client, base string, form url.Values) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/auth/signin", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode
}

// instances starts n Podium routers on the bundle's database, each its own server, as several
// processes behind a load balancer would be.
func (b *testBundle) instances(n int) []string {
	b.t.Helper()
	var urls []string
	for range n {
		h := rest.NewHandler(rest.Options{DB: b.db, Ops: b.res.Ops, Log: b.quietLog(),
			GraphQL: graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: b.quietLog()})})
		srv := httptest.NewServer(h)
		b.t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	return urls
}

// settled waits until no email is waiting for delivery.
func (b *testBundle) settled() {
	b.t.Helper()
	require.Eventually(b.t, func() bool {
		var waiting int
		require.NoError(b.t, b.db.System.QueryRow(b.sys(),
			`SELECT count(*) FROM river_job WHERE kind = 'deliver_email' AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&waiting))
		return waiting == 0
	}, 30*time.Second, 50*time.Millisecond)
}

// mailbox counts the messages the sink holds whose recipient folds to want (lower case, without a
// plus tag, and without dots for gmail.com and googlemail.com, as those mailboxes receive them).
func (b *testBundle) mailbox(want string) int {
	n := 0
	for _, m := range b.sink.Messages() {
		for _, to := range m.To {
			local, domain, _ := strings.Cut(strings.ToLower(to), "@")
			local, _, _ = strings.Cut(local, "+")
			if domain == "gmail.com" || domain == "googlemail.com" {
				local, domain = strings.ReplaceAll(local, ".", ""), "gmail.com"
			}
			if local+"@"+domain == want {
				n++
			}
		}
	}
	return n
}

// TestSignInMailCannon: sign-in requests cannot be aimed at one mailbox. Fifty requests for
// plus-tagged, dotted and re-cased variants of one address, from fifty client addresses, across
// two Podium instances on one database, through a call for proposals (which sends to addresses
// Podium does not know) and the plain sign-in (which sends to known ones), deliver at most the
// five links of one address's budget to each mailbox.
func TestSignInMailCannon(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	b.speaker(w.base, "Vic", "Tim", "victim@example.test")
	fx := b.cfpFixture(nil)
	servers := b.instances(2)

	accepted := 0
	for i := range 50 {
		addr := "victim+" + itoa(i) + "@example.test"
		gmail := "v.i.c.t.i.m+" + itoa(i) + "@gmail.com"
		if i%3 == 1 {
			addr = "Victim+x" + itoa(i) + "@Example.TEST"
			gmail = "VICTIM+" + itoa(i) + "@googlemail.com"
		}
		form := url.Values{"email": {addr}, "next": {"/cfp/" + fx.form}, "form": {fx.form}}
		if i%2 == 1 {
			form = url.Values{"email": {addr}, "next": {"/portal"}}
		}
		c := peerClient(2 + i)
		if postSignIn(t, c, servers[i%2], form) == http.StatusAccepted {
			accepted++
		}
		postSignIn(t, c, servers[(i+1)%2], url.Values{"email": {gmail}, "next": {"/cfp/" + fx.form}, "form": {fx.form}})
	}
	b.settled()
	require.LessOrEqual(t, b.mailbox("victim@example.test"), 5)
	require.LessOrEqual(t, b.mailbox("victim@gmail.com"), 5)
	require.LessOrEqual(t, accepted, 5, "the answers say a link is on its way only when one is")
}
