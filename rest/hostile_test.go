package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
)

// hostileValues are what a field of a write body is replaced with in TestHostileValues, as raw
// JSON: the values json.Marshal makes of hostileGo, then hostileRaw, which json.Marshal cannot
// make (invalid UTF-8, lone surrogates, numbers beyond float64, nesting past the decoder's limit,
// fragments that are not JSON at all).
var hostileValues = func() []string {
	var out []string
	for _, v := range hostileGo {
		raw, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("hostile value %#v: %v", v, err))
		}
		out = append(out, string(raw))
	}
	return append(out, hostileRaw...)
}()

var hostileGo = []any{
	// Types and numbers.
	nil, true, false, 0, -1, 1, 1.5, -1.5, 0.1, 1e300, -1e300, math.MaxFloat64, math.SmallestNonzeroFloat64,
	math.MaxInt32, math.MaxInt32 + 1, math.MinInt32 - 1, json.Number("9007199254740993"), json.Number("9223372036854775807"),
	json.Number("9223372036854775808"), json.Number("-9223372036854775809"), json.Number("18446744073709551616"),
	json.Number("123456789012345678901234567890"), json.Number("1.0"), json.Number("-0"), json.Number("1e2"),
	// Strings: empty, blank, control characters, long.
	"", " ", "\t\n\r", "\x00", "a\x00b", "\x00\x00\x00", "\x7f", "\x1b[31mred\x1b[0m", "\a\b\f\v",
	strings.Repeat("x", 256), strings.Repeat("x", 1001), strings.Repeat("x", 10_000), strings.Repeat("x", 65_536),
	strings.Repeat("é", 100_000), strings.Repeat("x", 1_000_000), strings.Repeat("👩‍👩‍👧‍👦", 5000),
	// SQL and other interpreters.
	"'", "''", "\"", "`", "\\", "'; DROP TABLE events; --", "' OR '1'='1", "' OR 1=1 --", "1; SELECT pg_sleep(5)",
	"'||pg_sleep(5)||'", "$1", "$$; DROP TABLE events; $$", "%", "_", "%_%", "\\x00", "E'\\\\x00'", "NULL", "null",
	"undefined", "true", "0", "-1", "NaN", "Infinity", "1e999", "<script>alert(1)</script>",
	"\"><img src=x onerror=alert(1)>", "{{7*7}}", "${7*7}", "${jndi:ldap://127.0.0.1/a}", "<!--", "]]>",
	"%s%s%s%n", "\r\nSet-Cookie: a=b", "a@example.test\r\nBcc: victim@example.test", "=cmd|' /C calc'!A0",
	"@SUM(1+1)", "../../../../etc/passwd", "..\\..\\windows\\win.ini", "/dev/zero", "CON", "\\\\127.0.0.1\\share",
	"BEGIN:VEVENT\r\nEND:VCALENDAR", "line\nbreak;and,commas",
	// URLs a server must neither fetch nor present as safe links.
	"javascript:alert(1)", "JAVASCRIPT:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
	"javascript://%0aalert(1)", "data:text/html,<script>alert(1)</script>",
	"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "data:image/svg+xml,<svg onload=alert(1)>",
	"vbscript:msgbox(1)", "file:///etc/passwd", "file://localhost/etc/passwd", "file:///C:/Windows/win.ini",
	"http://169.254.169.254/latest/meta-data/iam/security-credentials/", "https://169.254.169.254/",
	"http://[fd00:ec2::254]/latest/meta-data/", "http://metadata.google.internal/computeMetadata/v1/",
	"http://100.100.100.200/latest/meta-data/", "http://localhost/", "https://localhost/", "http://localhost:5432/",
	"http://127.0.0.1/", "https://127.0.0.1:22/", "http://[::1]/", "http://0.0.0.0/", "http://0/",
	"http://2130706433/", "http://0x7f000001/", "http://127.1/", "https://169.254.169.254.nip.io/",
	"gopher://127.0.0.1:25/_HELO", "dict://127.0.0.1:11211/stat", "ftp://127.0.0.1/", "ldap://127.0.0.1/",
	"//evil.test/", "https:evil.test", "https:/\\evil.test", "https://www.youtube.com.evil.test/embed/x",
	"https://evil.test/www.youtube.com/embed/x", "https://www.youtube.com@evil.test/",
	"https://evil.test#@www.youtube.com", "https://evil.test\\@www.youtube.com", "https://www.youtube.com%2f@evil.test",
	"https://WWW.YOUTUBE.COM/embed/x", "https://www.youtube.com:8443/embed/x", "https://m.youtube.com/embed/x",
	"https://www.yоutube.com/embed/x", "https://www.youtube.com./embed/x", "http://www.youtube.com/embed/x",
	"https://", "https://x", "https://" + strings.Repeat("a", 5000) + ".test/", "https://evil.test/" + strings.Repeat("%00", 100),
	"mailto:a@example.test", "about:blank", "blob:https://evil.test/1", "intent://x#Intent;end",
	// Unicode tricks.
	"\u202eevil", "\u200b", "\u200d", "\ufeff", "\u2028\u2029", "e\u0301", strings.Repeat("\u0301", 1000),
	"Z̷̢̛a̸l̶g̵o̶", "𝕬𝖉𝖒𝖎𝖓", "Ａｄｍｉｎ", "Аdmin", "İ", "ß", "ﬃ", "\U0001F4A9", "\U0010FFFF", "\uFFFD", "\uFFFE",
	"🏳️‍🌈", "\u0085", "\u00a0", "\u3000", strings.Repeat("\u202e", 100), "مرحبا", "שלום", "会议", "ｶﾝﾌｧﾚﾝｽ", "컨퍼런스",
	// Timestamps.
	"2027-02-30T00:00:00Z", "2027-13-01T00:00:00Z", "2027-01-01T24:00:00Z", "2027-01-01T23:59:60Z",
	"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "10000-01-01T00:00:00Z",
	"-0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2027-01-01T00:00:00+14:00", "2027-01-01T00:00:00+99:99",
	"2027-01-01T00:00:00.1234567890123Z", "2027-01-01", "2027-01-01 00:00:00", "20270101T000000Z", "now",
	"2262-04-12T00:00:00Z", "1677-09-21T00:00:00Z",
	// Time zones, emails, colours, ids.
	"Etc/GMT+14", "Local", "UTC\x00", "../../../../etc/passwd", "europe/berlin", "+05:30", "EST5EDT",
	"a@b", "@", "a@", "\"a b\"@example.test", "a@[127.0.0.1]", "ада@пример.рф", strings.Repeat("a", 300) + "@example.test",
	"a@example.test, b@example.test", "Name <a@example.test>", "#zzzzzz", "#0000000", "rgb(0,0,0)",
	"#000;background:url(javascript:alert(1))", "evt_", "evt_00000000000000000000000000",
	"ses_01doesnotexist0000000000", "*", "../",
	// Arrays and objects.
	[]any{}, []any{nil}, []any{""}, []any{"\x00"}, []any{1}, []any{[]any{}}, []any{map[string]any{}}, []any{true},
	[]any{"'; DROP TABLE events; --"}, repeated("ses_01doesnotexist0000000000", 10_000), map[string]any{},
	map[string]any{"$gt": ""}, map[string]any{"__proto__": map[string]any{"admin": true}}, map[string]any{"id": "x"},
}

var hostileRaw = []string{
	// Invalid UTF-8 inside strings, and escapes of code points that are not characters.
	"\"\xff\"", "\"\xfe\xff\"", "\"a\x80b\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
	"\"\xf0\x9f\x98\"", "\"\\ud800\"", "\"\\udfff\"", "\"\\ud800\\u0041\"", "\"\\udc00\\ud800\"", "\"\\u0000\"",
	"\"a\\u0000b\"", "\"\\uffff\"",
	// Numbers no float64 holds, and odd spellings of small ones.
	"1e999999", "-1e999999", "1e-999999", "1E400", "4.9e-324", "-0.0", "0.1e1", "3.0000000000000001",
	// Deep nesting: past the decoder's limit and within it.
	strings.Repeat("[", 100) + strings.Repeat("]", 100), strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001),
	strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100),
	strings.Repeat(`{"a":`, 10_001) + "1" + strings.Repeat("}", 10_001),
	// Not JSON.
	"NaN", "Infinity", "-Infinity", "undefined", "'x'", "0x10", "01", "+1", ".5", "\"unterminated", "\"a\tb\"", "tru",
}

// hostileBodies are whole bodies, sent to every write operation once each.
var hostileBodies = []string{
	"\xef\xbb\xbf{}", `{"a":1,"a":2}`, "{\"\xff\":1}", `{"\ud800":1}`, "{} {}", "{}\x00", " \t\r\n{}\n",
	"{" + strings.Repeat(`"k":1,`, 50_000) + `"k":1}`, strings.Repeat(" ", 1<<20+1) + "{}",
}

func repeated(s string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestHostileValues posts to every write operation its valid body (the fixture's) with one field
// replaced by a hostile value, then whole hostile bodies. Every answer is a success or a 4xx in
// the contract's envelope, never a 5xx, and a refused request changes no row (see countWrites).
//
// Every value reaches every operation; sending every value to every field too would be tens of
// thousands of requests, so operation i sends value j to field (i+j) mod its field count: each
// field gets a share of every kind of value (the list is grouped by kind). Fields are the body's
// keys, the schema's optional keys, and the first element of lists (and its keys, for lists of
// objects such as review answers).
func TestHostileValues(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.useAI(newFakeProvider(t))
	f := b.fixture()
	require.GreaterOrEqual(t, len(hostileValues), 200)

	b.countWrites()
	before, start := b.storedRows(), b.writeCount()

	sent, ops := 0, 0
	written := start
	send := func(op apiOperation, path string, body []byte, what string) {
		r := b.do(op.method, path, b.acme, body)
		sent++
		require.True(t, r.Status < 300 || (r.Status >= 400 && r.Status < 500),
			"%s %s with %s answered %d: %.300s", op.method, path, what, r.Status, r.Raw)
		now := b.writeCount()
		if r.Status >= 400 {
			requireEnvelope(t, r)
			require.Equal(t, written, now, "%s %s with %s changed %d rows though refused: %s", op.method, path, what, now-written, r.Raw)
		}
		written = now
	}
	for i, op := range writeOperations(b.operations(t)) {
		ops++
		path := f.path(op.path)
		valid := f.bodies[op.id]
		if valid == nil {
			valid = sample(op.body).(map[string]any)
		}
		fields := bodyFields(op.body, valid)
		require.NotEmpty(t, fields, op.id)
		for j, value := range hostileValues {
			field := fields[(i+j)%len(fields)]
			body := withRaw(t, valid, field, value)
			send(op, path, body, fmt.Sprintf("%s = %.120q", field, value))
		}
		for _, body := range hostileBodies {
			send(op, path, []byte(body), fmt.Sprintf("the body %.120q", body))
		}
	}
	require.GreaterOrEqual(t, ops, 30)
	// The values that were accepted were stored: the write count sees what the row count sees.
	require.Greater(t, b.storedRows(), before)
	require.Greater(t, b.writeCount(), start)
	t.Logf("%d requests: %d values and %d whole bodies to %d write operations", sent, len(hostileValues), len(hostileBodies), ops)
}

// countWrites installs in the bundle's database triggers that count the rows each committed
// transaction inserts, updates or deletes; writeCount reads the count. A refused request must
// leave it unchanged. It sees more than storedRows (updates and deletes, not only new
// rows) and costs one read of one row rather than a count of every table, which matters over
// thousands of requests.
//
// Left out: api_keys, whose last use is recorded outside the request's transaction on purpose,
// and River's bookkeeping tables.
func (b *testBundle) countWrites() {
	b.t.Helper()
	// DDL is the tables' owner's; test_writes is granted to Podium's role by default privileges.
	_, err := pgtest.OwnerPool(b.t, b.db).Exec(b.sys(), `
		CREATE TABLE test_writes (n bigint NOT NULL);
		INSERT INTO test_writes VALUES (0);
		CREATE FUNCTION test_count_write() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			UPDATE test_writes SET n = n + 1;
			RETURN NULL;
		END $$;
		DO $$
		DECLARE t text;
		BEGIN
			FOR t IN SELECT table_name FROM information_schema.tables
				WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
				AND table_name NOT IN ('test_writes', 'api_keys') AND table_name NOT LIKE '%migration%'
				AND (table_name NOT LIKE 'river\_%' OR table_name = 'river_job')
			LOOP
				EXECUTE format('CREATE TRIGGER test_count_write AFTER INSERT OR UPDATE OR DELETE ON %I
					FOR EACH ROW EXECUTE FUNCTION test_count_write()', t);
			END LOOP;
		END $$;`)
	require.NoError(b.t, err)
}

// writeCount is the number of rows committed transactions have changed since countWrites.
func (b *testBundle) writeCount() int64 {
	b.t.Helper()
	var n int64
	require.NoError(b.t, b.db.System.QueryRow(b.sys(), `SELECT n FROM test_writes`).Scan(&n))
	return n
}

// writeOperations are the operations with a request body, ordered by operation id.
func writeOperations(all []apiOperation) []apiOperation {
	var writes []apiOperation
	for _, op := range all {
		if op.body != nil {
			writes = append(writes, op)
		}
	}
	sort.Slice(writes, func(i, j int) bool { return writes[i].id < writes[j].id })
	return writes
}

// bodyFields lists the fields of a body that TestHostileValues replaces, as paths: "name",
// "trackIds[0]", "answers[0].numericValue".
func bodyFields(schema, valid map[string]any) []string {
	seen := map[string]bool{}
	var fields []string
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			fields = append(fields, f)
		}
	}
	props, _ := schema["properties"].(map[string]any)
	var keys []string
	for k := range props {
		keys = append(keys, k)
	}
	for k := range valid {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(k)
		list, _ := valid[k].([]any)
		if len(list) == 0 {
			continue
		}
		add(k + "[0]")
		if elem, ok := list[0].(map[string]any); ok {
			var sub []string
			for s := range elem {
				sub = append(sub, s)
			}
			sort.Strings(sub)
			for _, s := range sub {
				add(k + "[0]." + s)
			}
		}
	}
	return fields
}

// hostileMark stands for the hostile value in the marshalled body until it is spliced in.
const hostileMark = "\"__hostile_value__\""

// withRaw is valid, marshalled, with the field at path replaced by raw JSON.
func withRaw(t *testing.T, valid map[string]any, path, raw string) []byte {
	t.Helper()
	body := deepClone(t, valid)
	var parent any = body
	parts := strings.Split(path, ".")
	for n, part := range parts {
		key, index := part, -1
		if i := strings.Index(part, "[0]"); i >= 0 {
			key, index = part[:i], 0
		}
		obj := parent.(map[string]any)
		last := n == len(parts)-1
		if index < 0 {
			if last {
				obj[key] = "__hostile_value__"
			} else {
				parent = obj[key]
			}
			continue
		}
		list := obj[key].([]any)
		if last {
			list[0] = "__hostile_value__"
		} else {
			parent = list[0]
		}
	}
	out, err := json.Marshal(body)
	require.NoError(t, err)
	return bytes.Replace(out, []byte(hostileMark), []byte(raw), 1)
}

func deepClone(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(m)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out map[string]any
	require.NoError(t, dec.Decode(&out))
	return out
}

// canary is a server that counts the connections made to it, whether or not they become
// requests (a TLS handshake with the wrong certificate still counts).
type canary struct {
	srv   *httptest.Server
	conns atomic.Int64
}

func newCanary(t *testing.T, tls bool) *canary {
	t.Helper()
	c := &canary{}
	c.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
	}))
	c.srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			c.conns.Add(1)
		}
	}
	if tls {
		c.srv.StartTLS()
	} else {
		c.srv.Start()
	}
	t.Cleanup(c.srv.Close)
	return c
}

// urlField matches the names of fields that hold a URL or a path.
var urlField = regexp.MustCompile(`(?i)(url|path|website|linkedin|twitter|facebook)$`)

// TestURLsAreNeverFetched puts URLs of local servers in every field that holds a URL (resource
// links and embeds, speakers' and events' websites, reviewers' access paths), over both
// transports, with the email workers running, and requires that nothing ever connects to them:
// a server that fetched what users give it could be made to reach the cloud metadata endpoint or
// the internal network.
func TestURLsAreNeverFetched(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	b.useAI(newFakeProvider(t))
	f := b.fixture()
	plain, tls := newCanary(t, false), newCanary(t, true)
	plainHost := strings.TrimPrefix(plain.srv.URL, "http://")
	_, plainPort, err := net.SplitHostPort(plainHost)
	require.NoError(t, err)
	tlsHost := strings.TrimPrefix(tls.srv.URL, "https://")
	_, tlsPort, err := net.SplitHostPort(tlsHost)
	require.NoError(t, err)
	urls := []string{
		plain.srv.URL + "/link", "https://" + plainHost + "/link", tls.srv.URL + "/link",
		"http://localhost:" + plainPort + "/link", "https://localhost:" + tlsPort + "/embed/x",
		"//" + plainHost + "/link", "https://www.youtube.com@" + tlsHost + "/embed/x",
	}

	tested := map[string]bool{}
	for _, op := range writeOperations(b.operations(t)) {
		valid := f.bodies[op.id]
		if valid == nil {
			valid = sample(op.body).(map[string]any)
		}
		for _, field := range bodyFields(op.body, valid) {
			name := field[strings.LastIndex(field, ".")+1:]
			if !urlField.MatchString(name) {
				continue
			}
			for _, u := range urls {
				raw, _ := json.Marshal(u)
				r := b.do(op.method, f.path(op.path), b.acme, withRaw(t, valid, field, string(raw)))
				require.Less(t, r.Status, 500, "%s with %s = %s: %s", op.id, field, u, r.Raw)
				tested[op.id+" "+field] = true
			}
		}
	}
	// Resources take an https link as is, so some of these are stored and listed.
	for _, kind := range []string{"link", "embed"} {
		for _, u := range urls {
			body := clone(f.bodies["createResource"])
			body["attachmentKind"], body["linkUrl"], body["embedUrl"] = kind, nil, nil
			body[kind+"Url"] = u
			r := b.do(http.MethodPost, f.path("/events/{eventId}/resources"), b.acme, body)
			require.Less(t, r.Status, 500, r.Raw)
			if r.Status == http.StatusCreated {
				tested["stored "+kind] = true
			}
			g := b.gql(b.acme, `mutation($e: ID!, $in: ResourceInput!) { createResource(eventId: $e, input: $in) { id linkUrl embedUrl } }`,
				map[string]any{"e": f.ids["eventId"], "in": body})
			require.Less(t, g.Status, 500, g.Raw)
		}
	}
	require.True(t, tested["stored link"], "no link resource with a canary URL was stored: %v", tested)
	for _, want := range []string{"createResource linkUrl", "createResource embedUrl", "updateResource linkUrl",
		"saveSpeaker websiteUrl", "updateEvent websiteUrl", "addReviewer accessPath"} {
		require.True(t, tested[want], "no URL field %q among %v", want, tested)
	}

	// Reading what was stored fetches nothing either.
	for _, path := range []string{"/events/{eventId}/resources", "/events/{eventId}/agenda", "/events/{eventId}",
		"/events/{eventId}/speakers", "/events/{eventId}/emails"} {
		b.must(http.StatusOK, http.MethodGet, f.path(path), b.acme, nil)
	}
	b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { websiteUrl resources { linkUrl embedUrl } } }`,
		map[string]any{"e": f.ids["eventId"]})

	// The emails the requests queued (reviewer invitations) are delivered before the canaries
	// are read, so that a fetch made by a worker would be seen.
	require.Eventually(t, func() bool {
		var pending int
		require.NoError(t, b.db.System.QueryRow(b.sys(),
			`SELECT count(*) FROM river_job WHERE kind = 'deliver_email' AND state IN ('available', 'running', 'scheduled', 'retryable', 'pending')`).Scan(&pending))
		return pending == 0
	}, 20*time.Second, 20*time.Millisecond)
	require.Zero(t, plain.conns.Load(), "something connected to %s", plain.srv.URL)
	require.Zero(t, tls.conns.Load(), "something connected to %s", tls.srv.URL)
	t.Logf("%d URL fields and resource kinds tried", len(tested))
}

// TestGraphQLHostileRequests sends /graphql requests that are not GraphQL requests at all, and
// cursors the server never issued. Both are the caller's mistakes: the answer carries the code
// REST gives the same mistake (docs/rest-api.md §6), never internal_error, and nothing panics.
func TestGraphQLHostileRequests(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Hostile"), "id")

	t.Run("BodyNotARequest", func(t *testing.T) {
		for body, code := range map[string]string{
			``: "invalid_json", `{`: "invalid_json", "\xff": "invalid_json", `{"query":"{ organization { id } }"} x`: "invalid_json",
			`[]`: "invalid_body", `"query"`: "invalid_body", `{"query":1}`: "invalid_body",
			`{"query":"{ organization { id } }","variables":[]}`:    "invalid_body",
			`{"query":"{ organization { id } }","variables":"x"}`:   "invalid_body",
			`{"query":"{ organization { id } }","operationName":1}`: "invalid_body",
			`{"query":"{ organization { id } }","extensions":"x"}`:  "invalid_body",
		} {
			r := b.do(http.MethodPost, "/graphql", b.acme, body)
			var out gqlResponse
			require.NoError(t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
			require.Equal(t, http.StatusBadRequest, r.Status, "%q: %s", body, r.Raw)
			require.Equal(t, []string{code}, out.Codes(), "%q: %s", body, r.Raw)
		}
	})

	t.Run("CursorNeverIssued", func(t *testing.T) {
		for _, query := range []string{
			`{ events(first: 1, after: "x") { totalCount } }`,
			`query($id: ID!) { event(id: $id) { sessions(first: 1, after: "\u0000") { totalCount } } }`,
			`query($id: ID!) { event(id: $id) { emails(first: 1, after: "!!") { totalCount } } }`,
		} {
			g := b.gql(b.acme, query, map[string]any{"id": ev})
			require.Len(t, g.Errors, 1, g.Raw)
			require.Contains(t, []string{"invalid_input", "invalid_body"}, g.Codes()[0], "%s: %s", query, g.Raw)
		}
	})

	logMu.Lock()
	defer logMu.Unlock()
	require.NotContains(t, b.logs.String(), "panic")
}
