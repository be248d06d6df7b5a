package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
)

// TestAuthorizationRulesCoverTheSchema fails when a query or mutation field has no rule in
// access.Rules, or a rule names a field that no longer exists: every field is decided.
func TestAuthorizationRulesCoverTheSchema(t *testing.T) {
	t.Parallel()
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	fields := map[string]bool{}
	for _, f := range schema.Query.Fields {
		fields["Query."+f.Name] = true
	}
	for _, f := range schema.Mutation.Fields {
		fields["Mutation."+f.Name] = true
	}
	for _, f := range schema.Subscription.Fields {
		fields["Subscription."+f.Name] = true
	}
	for name := range fields {
		require.NotZero(t, access.Rules[name], "%s has no rule in graph/access/rules.go: decide who may run it", name)
	}
	for name := range access.Rules {
		require.True(t, fields[name], "access.Rules names %s, which is not in the schema", name)
	}
}

// graphQLOnlyVariables are valid variables of the mutations that have no REST operation, whose
// fuzz seeds (made from REST bodies) do not pass validation: a refusal must come from the rule,
// not from the document.
var graphQLOnlyVariables = map[string]string{
	"inviteOrganizationMember": `{"input":{"email":"invitee@example.test","role":"member"}}`,
	"submitMyReview": `{"assignmentId":"{assignmentId}","input":{"answers":[{"criterionId":"{criterionId}",` +
		`"numericValue":3,"textValue":null,"optionValue":null}]}}`,
	"recuseMyAssignment":     `{"assignmentId":"{assignmentId}","input":{"reason":"conflict"}}`,
	"createForm":             `{"eventId":"{eventId}","input":{"title":"Form"}}`,
	"updateForm":             `{"eventId":"{eventId}","formId":"{formId}","input":{"title":"Form"}}`,
	"saveProposal":           `{"formId":"{formId}","input":{"title":"P"}}`,
	"withdrawProposal":       `{"formId":"{formId}","id":"{proposalId}"}`,
	"addEmailSuppression":    `{"input":{"address":"suppressed@example.test"}}`,
	"removeEmailSuppression": `{"address":"suppressed@example.test"}`,
	"saveEmailTemplate": `{"eventId":"{eventId}","input":{"template":"session_accepted","subject":"Hi {{firstName}}",` +
		`"body":"{{link}}"}}`,
	"resetEmailTemplate": `{"eventId":"{eventId}","template":"session_accepted"}`,
	"saveChasers":        `{"eventId":"{eventId}","input":{"quietStart":0,"quietEnd":0,"dailyCap":1,"rules":[]}}`,
	"informSubmissions":  `{"eventId":"{eventId}","input":{"submissionIds":["{submissionId}"]}}`,
	"saveMyReview":       `{"eventId":"{eventId}","submissionId":"{submissionId}","input":{"decision":"approve","score":3,"comment":null}}`,
	// A speaker's own changes: valid, so that a key's scope, not validation, answers them.
	"answerCoSpeakerInvitation": `{"formId":"{formId}","id":"{proposalId}","accept":true}`,
	"setMyAvailability":         `{"eventId":"{eventId}","input":{"intervals":[]}}`,
	"setMyTaskDone":             `{"id":"{taskId}","done":true}`,
	"updateMySessionContent":    `{"sessionId":"{sessionId}","input":{"title":"T"}}`,
	// API keys: a key of write alone, which every key holding write may make.
	"createApiKey": `{"input":{"name":"Made","scopes":["write"]}}`,
}

// matrixCaller is one caller of the authorization matrix.
type matrixCaller struct {
	name string
	// key or cookie authenticates the caller; neither is anonymous.
	key, cookie string
	// allowed says whether the rule admits the caller (nil: the caller is checked for leaks
	// only, as an admin of another organization reaches its own organization's data).
	allowed func(access.Rule) bool
}

// TestAuthorizationMatrix runs every query and mutation of the schema as each kind of caller,
// against an event with one of everything, and checks each answer against access.Rules: a caller
// the rule refuses gets forbidden (anonymous callers: missing_api_key), and its answer holds no
// value of the event's records; a caller the rule admits is not refused by it.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ids := f.replacer()
	base := "/api/v1/events/" + f.ids["eventId"]
	b.must(http.StatusCreated, http.MethodPost, base+"/speakers", b.acme, speakerBody("grace@example.test"))
	_, err := b.db.System.Exec(b.sys(), `UPDATE review_rounds SET blind = true WHERE id = $1`, f.ids["roundId"])
	require.NoError(t, err)
	w := world{event: f.ids["eventId"], base: base}
	b.addReviewer(w, f.ids["roundId"], "idle-reviewer@example.test", nil)
	b.addMember(b.acmeOrg, "member@example.test", organizationmember.RoleMember)
	b.addMember(b.acmeOrg, "admin@example.test", organizationmember.RoleAdmin)
	b.addMember(b.globexOrg, "rival@example.test", organizationmember.RoleAdmin)
	b.createEvent(b.globex, "Globex Days")

	secrets := []string{"Fixture", "Lovelace", "grace@example.test", "reviewer@example.test", b.acmeOrg}
	for name, id := range f.ids {
		if name != "kind" && len(id) > 8 {
			secrets = append(secrets, id)
		}
	}
	sort.Strings(secrets)

	// What each caller may never read, through any field, allowed or not: a blind round's
	// reviewer nothing that identifies the speaker; a reviewer not assigned nothing of the
	// assignment; a speaker nothing of another speaker's records nor of the reviews. None of
	// these values is an argument of the calls, so an answer holds one only if it leaked.
	ada, grace := "ada@example.test", "grace@example.test"
	never := map[string][]string{
		"speaker A":                       {grace, `"reviewer@example.test"`, f.ids["criterionId"], f.ids["eventMemberId"]},
		"speaker B":                       {ada, f.ids["submissionId"], f.ids["taskId"], f.ids["deliverableId"], f.ids["criterionId"]},
		"reviewer assigned (blind round)": {"Lovelace", ada, grace, f.ids["submissionId"], f.ids["taskId"]},
		"reviewer not assigned":           {"Lovelace", ada, grace, f.ids["criterionId"], `"reviewer@example.test"`},
	}
	// What the caller-scoped fields answer their owner: the checks above could see a leak.
	owns := map[string]string{
		"speaker A → Query.mySpeaking":                                f.ids["submissionId"],
		"reviewer assigned (blind round) → Query.myReviewAssignments": f.ids["criterionId"],
	}
	seen := map[string]bool{}

	anyone := func(r access.Rule) bool { return r == access.Anyone }
	callers := []matrixCaller{
		{name: "anonymous", allowed: func(access.Rule) bool { return false }},
		{name: "speaker A", cookie: b.signIn("ada@example.test"), allowed: anyone},
		{name: "speaker B", cookie: b.signIn("grace@example.test"), allowed: anyone},
		{name: "reviewer assigned (blind round)", cookie: b.signIn("reviewer@example.test"), allowed: anyone},
		{name: "reviewer not assigned", cookie: b.signIn("idle-reviewer@example.test"), allowed: anyone},
		{name: "member", cookie: b.signIn("member@example.test"), allowed: func(r access.Rule) bool { return r != access.Admins }},
		{name: "admin of another organization", cookie: b.signIn("rival@example.test")},
		// Last: admins and keys run the mutations for real, which change the fixture.
		{name: "admin", cookie: b.signIn("admin@example.test"), allowed: func(access.Rule) bool { return true }},
		{name: "API key", key: b.acme, allowed: func(access.Rule) bool { return true }},
	}

	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	type call struct{ field, query, variables string }
	var calls []call
	for _, field := range schema.Query.Fields {
		if strings.HasPrefix(field.Name, "__") {
			continue
		}
		for _, id := range []string{f.ids["eventId"], f.ids["contactId"], f.ids["proposalId"], f.ids["assignmentId"]} {
			q, v := queryDocument(schema, field, id, []string{id})
			if access.Rules["Query."+field.Name] == access.Anyone {
				// The fields every caller reaches answer with every field they have, so that
				// a value leaked anywhere in them shows.
				q = strings.Replace(q, "{ id }", deepSelection(schema, field.Type.Name(), 4), 1)
				q = strings.Replace(q, "{ __typename }", deepSelection(schema, field.Type.Name(), 4), 1)
			}
			calls = append(calls, call{"Query." + field.Name, q, v})
		}
	}
	for _, field := range schema.Mutation.Fields {
		q, v := mutationSeedFile(t, field.Name)
		if own, ok := graphQLOnlyVariables[field.Name]; ok {
			v = own
		}
		calls = append(calls, call{"Mutation." + field.Name, q, ids.Replace(v)})
	}

	refusals := map[string]bool{access.ErrPersonForbidden.Message: true, access.ErrReadOnly.Message: true}
	checked := 0
	for _, c := range callers {
		for _, k := range calls {
			rule := access.Rules[k.field]
			what := c.name + " → " + k.field
			r := b.matrixCall(c, k.query, k.variables)
			codes := r.Codes()
			refused := false
			for _, e := range r.Errors {
				if refusals[e.Message] || e.Extensions["code"] == "missing_api_key" {
					refused = true
				}
			}
			switch {
			case c.allowed == nil:
				// Tenancy, not the rule, keeps them out: see TestCrossOrganization.
			case c.allowed(rule):
				require.False(t, refused, "%s: the rule admits this caller: %s", what, r.Raw)
			default:
				require.True(t, refused, "%s: the rule refuses this caller: %s", what, r.Raw)
				want := "forbidden"
				if c.key == "" && c.cookie == "" {
					want = "missing_api_key"
				}
				require.Equal(t, []string{want}, codes, "%s: %s", what, r.Raw)
			}
			for _, v := range never[c.name] {
				require.NotContains(t, r.Raw, v, "%s: the answer holds a value this caller may never read", what)
			}
			if want, ok := owns[what]; ok && strings.Contains(r.Raw, want) {
				seen[what] = true
			}
			if c.allowed == nil || !c.allowed(rule) {
				for _, s := range secrets {
					require.NotContains(t, r.Raw, s, "%s: a refused answer holds a value of the protected records", what)
				}
			}
			checked++
		}
	}
	for what := range owns {
		require.True(t, seen[what], "%s: the caller's own records were not answered", what)
	}
	require.Greater(t, checked, 9*50)
}

// matrixCall posts a document as the caller.
func (b *testBundle) matrixCall(c matrixCaller, query, variables string) gqlResponse {
	b.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(graphQLBody(query, variables)))
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.cookie != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: c.cookie})
	}
	r := b.send(req)
	out := gqlResponse{Status: r.Status, Raw: r.Raw}
	require.NoError(b.t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
	return out
}

// deepSelection selects every field of the object type name without arguments, nested objects
// included down to depth levels.
func deepSelection(schema *ast.Schema, name string, depth int) string {
	def := schema.Types[name]
	if def == nil || def.Kind != ast.Object || depth == 0 {
		return "{ __typename }"
	}
	var parts []string
	for _, f := range def.Fields {
		if len(f.Arguments) > 0 || strings.HasPrefix(f.Name, "__") {
			continue
		}
		switch schema.Types[f.Type.Name()].Kind {
		case ast.Scalar, ast.Enum:
			parts = append(parts, f.Name)
		case ast.Object:
			parts = append(parts, f.Name+" "+deepSelection(schema, f.Type.Name(), depth-1))
		}
	}
	return "{ " + strings.Join(parts, " ") + " }"
}
