package rest_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCFPFormInternalNameIsOrganizers checks that a form's internal name, the organizers' own,
// reaches its organizers only: a signed-in speaker reading the form, and another organization's
// key, get null.
func TestCFPFormInternalNameIsOrganizers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(nil)
	b.gqlOK(b.acme, `mutation($e: ID!, $f: ID!, $in: CfpFormInput!) { updateForm(eventId: $e, formId: $f, input: $in) { id } }`,
		map[string]any{"e": fx.event, "f": fx.form, "in": map[string]any{"internalName": "B-list, do not tell"}})
	doc := `query($f: ID!) { cfpForm(id: $f) { title internalName } }`
	vars := map[string]any{"f": fx.form}

	own := b.gqlOK(b.acme, doc, vars)["cfpForm"].(map[string]any)
	require.Equal(t, "B-list, do not tell", own["internalName"])
	forms := b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { forms { internalName } } }`, map[string]any{"e": fx.event})
	require.Contains(t, forms["event"].(map[string]any)["forms"], map[string]any{"internalName": "B-list, do not tell"})

	pat := b.formSignIn("pat.internal@example.test", fx.form)
	r := b.gqlAs(pat, doc, vars)
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, "Speak at CFP Conf", r.Data["cfpForm"].(map[string]any)["title"])
	require.Nil(t, r.Data["cfpForm"].(map[string]any)["internalName"], "a speaker reads the internal name")

	r = b.gql(b.globex, doc, vars)
	if f, ok := r.Data["cfpForm"].(map[string]any); ok {
		require.Nil(t, f["internalName"], "another organization's key reads the internal name")
	} else {
		require.NotEmpty(t, r.Errors, r.Raw)
	}
	require.NotContains(t, r.Raw, "do not tell")
}
