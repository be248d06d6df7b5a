package rest_test

import (
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/rest"
)

// TestKeyRulesCoverTheSchema fails when a query, mutation or subscription field has no entry in
// access.KeyRules, or an entry names a field that no longer exists: every field is decided for
// API keys as for people (TestAuthorizationRulesCoverTheSchema).
func TestKeyRulesCoverTheSchema(t *testing.T) {
	t.Parallel()
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	fields := map[string]bool{}
	for _, obj := range []string{"Query", "Mutation", "Subscription"} {
		for _, f := range schema.Types[obj].Fields {
			fields[obj+"."+f.Name] = true
			if obj == "Mutation" {
				require.NotEqual(t, access.NeedRead, access.KeyRules[obj+"."+f.Name].Need, "%s.%s changes data: it needs write", obj, f.Name)
			} else if !strings.HasPrefix(f.Name, "__") && f.Name != "apiKeys" {
				require.Equal(t, access.NeedRead, access.KeyRules[obj+"."+f.Name].Need, "%s.%s reads: it needs read", obj, f.Name)
			}
		}
	}
	for name := range fields {
		require.NotZero(t, access.KeyRules[name].Need, "%s has no entry in access.KeyRules (graph/access/rules.go)", name)
	}
	for name := range access.KeyRules {
		require.True(t, fields[name], "access.KeyRules names %s, which is not in the schema", name)
	}
}

// scopedKey creates a key of the organization named org with scopes, confined to event when it
// is not "".
func (b *testBundle) scopedKey(org, event string, scopes ...string) string {
	b.t.Helper()
	key, _, err := access.CreateKeyWith(b.sys(), b.db.Ent, org, "scoped "+strings.Join(scopes, "+"),
		access.KeyOptions{Scopes: scopes, EventID: event})
	require.NoError(b.t, err)
	return key
}

// scopeCall is one call of the scope matrix: a REST route or a GraphQL root field.
type scopeCall struct {
	what string
	need access.Need
	do   func(key string) (status int, codes []string, messages []string, raw string)
}

// scopeCalls are every REST route (public ones aside) and every query and mutation field,
// called with the fixture's ids and valid bodies where the fixture has them.
func (b *testBundle) scopeCalls(t *testing.T, f fixture) []scopeCall {
	ids := f.replacer()
	var calls []scopeCall
	for _, op := range b.operations(t) {
		if op.public {
			continue
		}
		path := pathParam.ReplaceAllString(ids.Replace("/api/v1"+op.path), "ses_01doesnotexist0000000000")
		var body any
		if op.body != nil {
			body = sample(op.body)
			if valid, ok := f.bodies[op.id]; ok {
				body = valid
			}
		}
		method := op.method
		calls = append(calls, scopeCall{
			what: method + " " + op.path,
			need: rest.KeyRuleOf(method, op.path).Need,
			do: func(key string) (int, []string, []string, string) {
				r := b.do(method, path, key, body)
				return r.Status, []string{r.ErrCode()}, []string{r.ErrMessage()}, r.Raw
			},
		})
	}
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	gqlCall := func(field, query, variables string) scopeCall {
		return scopeCall{what: field, need: access.KeyRules[field].Need, do: func(key string) (int, []string, []string, string) {
			r := b.matrixCall(matrixCaller{key: key}, query, variables)
			var messages []string
			for _, e := range r.Errors {
				messages = append(messages, e.Message)
			}
			return r.Status, r.Codes(), messages, r.Raw
		}}
	}
	for _, field := range schema.Query.Fields {
		if strings.HasPrefix(field.Name, "__") {
			continue
		}
		q, v := queryDocument(schema, field, f.ids["eventId"], []string{f.ids["eventId"]})
		calls = append(calls, gqlCall("Query."+field.Name, q, v))
	}
	for _, field := range schema.Mutation.Fields {
		q, v := mutationSeedFile(t, field.Name)
		if own, ok := graphQLOnlyVariables[field.Name]; ok {
			v = own
		}
		calls = append(calls, gqlCall("Mutation."+field.Name, q, ids.Replace(v)))
	}
	return calls
}

// TestKeyScopeMatrix runs every REST route and every GraphQL query and mutation field with a key
// of each single scope — read, write, and send_mail with write — and checks each answer against
// access.KeyRules: a key lacking a scope is refused 403 insufficient_scope naming it, and the
// refused calls together change no row of the organization; a key holding what the rule needs is
// not refused for scope. Fields that email only when asked (deciding with inform, cancelling while
// telling the speakers) may be refused to a key without send_mail, by their operation, and only so.
func TestKeyScopeMatrix(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	keys := []struct {
		name   string
		key    string
		allows func(access.Need) bool
		maybe  func(access.Need) bool
	}{
		{"read", b.scopedKey("Acme", "", "read"),
			func(n access.Need) bool { return n == access.NeedRead }, func(access.Need) bool { return false }},
		{"write", b.scopedKey("Acme", "", "write"),
			func(n access.Need) bool { return n == access.NeedWrite },
			func(n access.Need) bool { return n == access.NeedSendMailIfAsked }},
		{"send_mail+write", b.scopedKey("Acme", "", "write", "send_mail"),
			func(n access.Need) bool { return n != access.NeedRead }, func(access.Need) bool { return false }},
	}
	calls := b.scopeCalls(t, f)
	require.Greater(t, len(calls), 200)
	// Each key's first use records lastUsedAt; after it, its rows stay put for a minute.
	for _, k := range keys {
		b.do(http.MethodGet, "/api/v1/events", k.key, nil)
	}

	refused := func(codes []string) bool { return len(codes) > 0 && codes[0] == "insufficient_scope" }
	// The refusals first, all of them, between two fingerprints of the organization's rows.
	before := acmeRows(t, b)
	checked := 0
	var invalid []string
	for _, k := range keys {
		for _, c := range calls {
			if k.allows(c.need) || k.maybe(c.need) {
				continue
			}
			status, codes, messages, raw := c.do(k.key)
			what := k.name + " key → " + c.what
			if len(codes) > 0 && (codes[0] == "invalid_body" || codes[0] == "graphql_validation_failed") && strings.Contains(c.what, ".") && !strings.Contains(c.what, "/") {
				invalid = append(invalid, c.what+": "+raw)
				continue
			}
			require.True(t, refused(codes), "%s: the key lacks a scope the rule needs: %s", what, raw)
			require.Len(t, codes, 1, "%s: %s", what, raw)
			if strings.HasPrefix(c.what, "Query.") || strings.HasPrefix(c.what, "Mutation.") {
				require.Equal(t, http.StatusOK, status, "%s: %s", what, raw)
			} else {
				require.Equal(t, http.StatusForbidden, status, "%s: %s", what, raw)
			}
			missing := "read"
			if c.need != access.NeedRead {
				missing = "write"
				if k.name == "write" {
					missing = "send_mail"
				}
			}
			require.Contains(t, messages[0], "lacks the scope "+missing, "%s: %s", what, raw)
			checked++
		}
	}
	require.Empty(t, invalid, "documents that do not validate reach no rule: give them variables in graphQLOnlyVariables")
	require.Equal(t, before, acmeRows(t, b), "a refused call changed the organization's rows")
	require.Greater(t, checked, 200)

	// Then what each key may run: never refused for scope (for the fields emailing when asked, only
	// insufficient_scope).
	allowed := 0
	for _, k := range keys {
		for _, c := range calls {
			if !k.allows(c.need) && !k.maybe(c.need) {
				continue
			}
			status, codes, _, raw := c.do(k.key)
			what := k.name + " key → " + c.what
			if !slices.Contains(codes, "review_generation_error") { // no AI provider here: 502
				require.Less(t, status, 500, "%s: %s", what, raw)
			}
			if k.allows(c.need) {
				require.False(t, refused(codes), "%s: the key holds what the rule needs: %s", what, raw)
			}
			allowed++
		}
	}
	require.Greater(t, allowed, 150)
}

// TestKeyScopeSendMailWhenAsked: deciding with inform and cancelling a session while telling its
// speakers need send_mail; the same changes without email need write alone. REST's decide always
// informs, so it needs send_mail.
func TestKeyScopeSendMailWhenAsked(t *testing.T) {
	t.Parallel()
	b := setup(t)
	write := b.scopedKey("Acme", "", "write")
	ev := str(b.createEvent(b.acme, "Mail"), "id")
	sub := b.newSubmission(ev, 1)
	base := "/api/v1/events/" + ev

	r := b.do(http.MethodPost, base+"/submissions/decide", write,
		map[string]any{"submissionIds": []string{sub.ID}, "decision": "accept", "feedback": ""})
	b.requireError(r, http.StatusForbidden, "insufficient_scope")
	require.Contains(t, r.ErrMessage(), "send_mail")
	got, err := b.db.Ent.Submission.Get(b.sys(), sub.ID)
	require.NoError(t, err)
	require.Equal(t, sub.Status, got.Status, "a refused decision changed the submission")

	decide := `mutation($e: ID!, $in: DecideSubmissionsInput!) { decideSubmissions(eventId: $e, input: $in) { __typename } }`
	g := b.gql(write, decide, map[string]any{"e": ev, "in": map[string]any{"submissionIds": []string{sub.ID},
		"decision": "accept", "inform": true}})
	require.Equal(t, []string{"insufficient_scope"}, g.Codes(), g.Raw)
	// Without inform, write is enough: the operation's own rules answer (this submission has no
	// speaker yet).
	g = b.gql(write, decide, map[string]any{"e": ev, "in": map[string]any{"submissionIds": []string{sub.ID},
		"decision": "accept", "inform": false}})
	require.Equal(t, []string{"invalid_input"}, g.Codes(), g.Raw)

	r = b.do(http.MethodPost, base+"/sessions/"+sub.ID+"/cancel", write, map[string]any{"cause": "organizer"})
	b.requireError(r, http.StatusForbidden, "insufficient_scope")
	got, err = b.db.Ent.Submission.Get(b.sys(), sub.ID)
	require.NoError(t, err)
	require.Nil(t, got.CancelledAt, "a refused cancellation cancelled the session")
}

// TestKeyConfinedToOneEvent runs every route and field with a key confined to another event of
// the organization and the fixture event's ids: events of its organization other than its own
// answer as another organization's do (403 forbidden), organization-wide operations are
// forbidden, lists show its event alone, nothing of the fixture event shows, nothing changes.
func TestKeyConfinedToOneEvent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	own := str(b.createEvent(b.acme, "Own event"), "id")
	key := b.scopedKey("Acme", own, "read", "write", "send_mail")
	secrets := []string{}
	for name, id := range f.ids {
		if name != "kind" && len(id) > 8 {
			secrets = append(secrets, id)
		}
	}
	sort.Strings(secrets)

	list := b.must(http.StatusOK, http.MethodGet, "/api/v1/events", key, nil).List()
	require.Len(t, list, 1)
	require.Equal(t, own, list[0].(map[string]any)["id"])
	data := b.gqlOK(key, `{ events(first: 50) { totalCount edges { node { id } } } }`, nil)
	require.EqualValues(t, 1, data["events"].(map[string]any)["totalCount"])
	b.requireError(b.do(http.MethodPost, "/api/v1/events", key, map[string]any{
		"name": "New", "type": "conference", "timezone": "Europe/Berlin",
		"startsAt": "2027-09-10T09:00:00.000Z", "endsAt": "2027-09-12T17:00:00.000Z"}), http.StatusForbidden, "forbidden")
	other := b.do(http.MethodGet, "/api/v1/events/"+f.ids["eventId"], key, nil)
	foreign := b.do(http.MethodGet, "/api/v1/events/"+f.ids["eventId"], b.globex, nil)
	require.Equal(t, foreign.Status, other.Status)
	require.Equal(t, foreign.Raw, other.Raw, "another event of the organization answers as another organization's")

	// Every query of events, with each of the fixture's ids: the answer another organization's
	// key gets, word for word.
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	compared := 0
	for _, field := range schema.Query.Fields {
		if access.KeyRules["Query."+field.Name].Reach == access.Organization || !slices.ContainsFunc(field.Arguments,
			func(a *ast.ArgumentDefinition) bool { return a.Type.Name() == "ID" }) {
			continue
		}
		for name, id := range f.ids {
			if name == "kind" {
				continue
			}
			q, v := queryDocument(schema, field, id, []string{id})
			mine, theirs := b.graphQL(key, q, v), b.graphQL(b.globex, q, v)
			require.Equal(t, theirs.Raw, mine.Raw, "Query.%s with the fixture's %s", field.Name, name)
			compared++
		}
	}
	require.Greater(t, compared, 20)

	before := acmeRows(t, b)
	for _, c := range b.scopeCalls(t, f) {
		status, codes, _, raw := c.do(key)
		for _, s := range secrets {
			require.NotContains(t, raw, s, "%s: the answer holds the other event's data", c.what)
		}
		if !strings.HasPrefix(c.what, "Query.") && !strings.HasPrefix(c.what, "Mutation.") {
			require.Less(t, status, 500, "%s: %s", c.what, raw)
			if strings.Contains(c.what, "{eventId}") || rest.KeyRuleOf(strings.Fields(c.what)[0], strings.Fields(c.what)[1]).Reach == access.Organization &&
				!strings.Contains(c.what, "/api-keys") {
				require.Equal(t, http.StatusForbidden, status, "%s: %s", c.what, raw)
				require.Equal(t, "forbidden", codes[0], "%s: %s", c.what, raw)
			}
		}
	}
	require.Equal(t, before, acmeRows(t, b), "a key confined to another event changed the organization's rows")
}

// TestKeyExpiryRotationRevocation: a rotated key works within the overlap and is refused after
// it; an expired key is refused as a revoked one; a revoked key is refused on the next request.
func TestKeyExpiryRotationRevocation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ok := func(key string) { b.must(http.StatusOK, http.MethodGet, "/api/v1/events", key, nil) }
	refused := func(key string) {
		b.requireError(b.do(http.MethodGet, "/api/v1/events", key, nil), http.StatusUnauthorized, "invalid_api_key")
	}

	old := b.scopedKey("Acme", "", "read", "write")
	r := b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys/"+b.keyID(old)+"/rotate", b.acme,
		map[string]any{"overlapHours": 2}).Obj()
	fresh := r["secret"].(string)
	rotated := r["apiKey"].(map[string]any)
	require.Equal(t, []any{"read", "write"}, rotated["scopes"])
	require.Equal(t, "scoped read+write", rotated["name"])
	require.Equal(t, "apiKey", rotated["createdBy"].(map[string]any)["kind"])
	ok(old) // within the overlap
	ok(fresh)
	_, err := b.db.System.Exec(b.sys(), `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, b.keyID(old))
	require.NoError(t, err)
	refused(old) // after it
	ok(fresh)

	r = b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys/"+b.keyID(fresh)+"/rotate", b.acme, nil).Obj()
	third := r["secret"].(string)
	ok(fresh) // the default overlap is a day
	var hours float64
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT extract(epoch FROM expires_at - now()) / 3600 FROM api_keys WHERE id = $1`,
		b.keyID(fresh)).Scan(&hours))
	require.InDelta(t, 24, hours, 0.1)

	r = b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys/"+b.keyID(third)+"/rotate", b.acme,
		map[string]any{"overlapHours": 0}).Obj()
	refused(third) // no overlap
	ok(r["secret"].(string))
	b.requireError(b.do(http.MethodPost, "/api/v1/api-keys/"+b.keyID(third)+"/rotate", b.acme, nil),
		http.StatusBadRequest, "invalid_input")
	for _, hours := range []any{-1, 169, "x"} {
		r := b.do(http.MethodPost, "/api/v1/api-keys/"+b.keyID(fresh)+"/rotate", b.acme, map[string]any{"overlapHours": hours})
		require.Equal(t, http.StatusBadRequest, r.Status, r.Raw)
	}

	// Made already expired: refused; made to expire later: works.
	b.requireError(b.do(http.MethodPost, "/api/v1/api-keys", b.acme, map[string]any{"name": "Past", "scopes": []string{"read"},
		"expiresAt": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}), http.StatusBadRequest, "invalid_input")
	later := b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys", b.acme, map[string]any{"name": "Later",
		"scopes": []string{"read"}, "expiresAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}).Obj()
	ok(later["secret"].(string))

	// Revoked: refused on the next request; revoking again changes nothing.
	id := later["apiKey"].(map[string]any)["id"].(string)
	rev := b.must(http.StatusOK, http.MethodDelete, "/api/v1/api-keys/"+id, b.acme, nil).Obj()
	require.NotNil(t, rev["revokedAt"])
	refused(later["secret"].(string))
	again := b.must(http.StatusOK, http.MethodDelete, "/api/v1/api-keys/"+id, b.acme, nil).Obj()
	require.Equal(t, rev["revokedAt"], again["revokedAt"])
}

// TestKeyManagement: the list shows what a key is without its secret; a key makes no key broader
// than itself nor of another event; a member cannot manage keys, an admin can; another
// organization's key ids are not found.
func TestKeyManagement(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "One"), "id")
	otherEv := str(b.createEvent(b.acme, "Two"), "id")
	create := func(key string, body map[string]any) response {
		return b.do(http.MethodPost, "/api/v1/api-keys", key, body)
	}

	// A key holding read and write, no send_mail.
	rw := b.scopedKey("Acme", "", "read", "write")
	b.requireError(create(rw, map[string]any{"name": "Mail", "scopes": []string{"send_mail"}}), http.StatusForbidden, "insufficient_scope")
	made := b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys", rw,
		map[string]any{"name": "Reader", "scopes": []string{"read", "read"}, "eventId": ev}).Obj()
	require.Equal(t, []any{"read"}, made["apiKey"].(map[string]any)["scopes"])
	require.Equal(t, ev, made["apiKey"].(map[string]any)["eventId"])
	secret := made["secret"].(string)
	require.True(t, access.WellFormed(secret))

	// A read key cannot manage keys at all.
	b.requireError(create(secret, map[string]any{"name": "X", "scopes": []string{"read"}}), http.StatusForbidden, "insufficient_scope")
	b.requireError(b.do(http.MethodGet, "/api/v1/api-keys", secret, nil), http.StatusForbidden, "insufficient_scope")

	// A key confined to one event makes keys of that event only.
	one := b.scopedKey("Acme", ev, "read", "write")
	b.requireError(create(one, map[string]any{"name": "Org", "scopes": []string{"read"}}), http.StatusForbidden, "forbidden")
	b.requireError(create(one, map[string]any{"name": "Two", "scopes": []string{"read"}, "eventId": otherEv}), http.StatusForbidden, "forbidden")
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys", one, map[string]any{"name": "Same", "scopes": []string{"read"}, "eventId": ev})
	for _, k := range b.must(http.StatusOK, http.MethodGet, "/api/v1/api-keys", one, nil).List() {
		require.Equal(t, ev, k.(map[string]any)["eventId"], "a key confined to one event lists that event's keys only")
	}
	b.requireError(b.do(http.MethodDelete, "/api/v1/api-keys/"+b.keyID(rw), one, nil), http.StatusNotFound, "not_found")

	// A secret is never stored to be replayed: Idempotency-Key is ignored, each call makes a key.
	var secrets []string
	for range 2 {
		req := b.request(http.MethodPost, "/api/v1/api-keys", "Bearer "+b.acme)
		req.Body = io.NopCloser(strings.NewReader(`{"name":"Retried","scopes":["read"]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(rest.IdempotencyHeader, "same-key")
		r := b.send(req)
		require.Equal(t, http.StatusCreated, r.Status, r.Raw)
		require.Empty(t, r.Header.Get(rest.ReplayedHeader))
		secrets = append(secrets, r.Obj()["secret"].(string))
	}
	require.NotEqual(t, secrets[0], secrets[1])
	var stored int
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT count(*) FROM idempotency_records`).Scan(&stored))
	require.Zero(t, stored)

	// Bad input: clear 400s, nothing made.
	var count int
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT count(*) FROM api_keys`).Scan(&count))
	for _, body := range []map[string]any{
		{"name": "No scopes", "scopes": []string{}},
		{"name": "Bad scope", "scopes": []string{"admin"}},
		{"name": "", "scopes": []string{"read"}},
		{"name": strings.Repeat("n", 201), "scopes": []string{"read"}},
		{"name": "Foreign event", "scopes": []string{"read"}, "eventId": "evt_01doesnotexist000000000"},
		{"scopes": []string{"read"}},
	} {
		r := create(b.acme, body)
		require.Contains(t, []int{http.StatusBadRequest, http.StatusForbidden}, r.Status, "%v: %s", body, r.Raw)
	}
	var after int
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT count(*) FROM api_keys`).Scan(&after))
	require.Equal(t, count, after)

	// The list: every key of the organization, with its creator, never a secret or hash.
	list := b.must(http.StatusOK, http.MethodGet, "/api/v1/api-keys", b.acme, nil)
	require.NotContains(t, list.Raw, secret[12:])
	require.NotContains(t, list.Raw, "hash")
	byName := map[string]map[string]any{}
	for _, k := range list.List() {
		byName[k.(map[string]any)["name"].(string)] = k.(map[string]any)
	}
	require.Equal(t, map[string]any{"kind": "apiKey", "id": b.keyID(rw), "name": "scoped read+write"}, byName["Reader"]["createdBy"])
	require.Nil(t, byName["test"]["createdBy"], "keys of the command line have no creator")
	require.Equal(t, []any{"read", "write", "send_mail"}, byName["test"]["scopes"])
	require.NotNil(t, byName["test"]["lastUsedAt"])
	require.Equal(t, secret[:12], byName["Reader"]["prefix"])

	// People: an admin manages keys, a member cannot.
	b.addMember(b.acmeOrg, "admin@example.test", organizationmember.RoleAdmin)
	b.addMember(b.acmeOrg, "member@example.test", organizationmember.RoleMember)
	admin, member := b.signIn("admin@example.test"), b.signIn("member@example.test")
	const mk = `mutation { createApiKey(input: {name: "By admin", scopes: [read]}) { secret apiKey { createdBy { kind name } } } }`
	g := b.gqlCookie(admin, mk, nil)
	require.Empty(t, g.Errors, g.Raw)
	require.Contains(t, g.Raw, `"kind":"person"`)
	g = b.gqlCookie(member, mk, nil)
	require.Equal(t, []string{"forbidden"}, g.Codes(), g.Raw)
	g = b.gqlCookie(member, `{ apiKeys { id } }`, nil)
	require.Equal(t, []string{"forbidden"}, g.Codes(), g.Raw)

	// The command line: scopes checked, an event of the organization only.
	_, _, err := access.CreateKeyWith(b.sys(), b.db.Ent, "Acme", "cli", access.KeyOptions{Scopes: []string{"admin"}})
	require.ErrorContains(t, err, `Unknown scope "admin"`)
	globexEvent := str(b.createEvent(b.globex, "Theirs"), "id")
	_, _, err = access.CreateKeyWith(b.sys(), b.db.Ent, "Acme", "cli", access.KeyOptions{EventID: globexEvent})
	require.ErrorContains(t, err, "no event")
	cli, rec, err := access.CreateKeyWith(b.sys(), b.db.Ent, "Acme", "cli", access.KeyOptions{Scopes: []string{"send_mail", "read"}, EventID: ev})
	require.NoError(t, err)
	require.Equal(t, []string{"read", "send_mail"}, rec.Scopes)
	require.Equal(t, ev, *rec.EventID)
	b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+ev, cli, nil)
	b.requireError(b.do(http.MethodGet, "/api/v1/events/"+otherEv, cli, nil), http.StatusForbidden, "forbidden")

	// Tenant walls: another organization's key ids are not found, and its list is its own.
	for _, path := range []string{"/api/v1/api-keys/" + b.keyID(rw), "/api/v1/api-keys/" + b.keyID(rw) + "/rotate"} {
		method := http.MethodDelete
		if strings.HasSuffix(path, "/rotate") {
			method = http.MethodPost
		}
		b.requireError(b.do(method, path, b.globex, nil), http.StatusNotFound, "not_found")
	}
	g = b.gql(b.globex, `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, map[string]any{"id": b.keyID(rw)})
	require.Equal(t, []string{"not_found"}, g.Codes(), g.Raw)
	theirs := b.must(http.StatusOK, http.MethodGet, "/api/v1/api-keys", b.globex, nil)
	require.Len(t, theirs.List(), 1) // its own key of the command line
	require.NotContains(t, theirs.Raw, b.acmeOrg)
	ok := b.must(http.StatusOK, http.MethodGet, "/api/v1/events", rw, nil)
	require.NotNil(t, ok)
}
