package rest_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGraphQLEventModelsOfAPage: the read models of Event that a page of events reads together
// (agenda, library, evaluation, speakerDirectory, forms; graph/operation/loaders_event_models.go) answer for
// each event of the page what the event answers read alone — nothing of one event lands in
// another's, orders and empty lists kept. The page holds the bench's event of sessions (agenda,
// directory) and its event of reviews (rounds, results) beside empty events.
func TestGraphQLEventModelsOfAPage(t *testing.T) {
	t.Parallel()
	w := seedStatementWorld(t, 3)
	fields := map[string]string{
		"agenda": `agenda { event { id name timezone agendaDirty } rooms { id name position } tracks { id name }
			sessions { id code title roomId startsAt tracks { id } speakers { id name } } conflicts { kind sessionIds name } }`,
		"library": `library { tracks { id name position } formats { id name } rooms { id capacity } tags { id } levels { id }
			admins { id name email } }`,
		"evaluation": `evaluation { eventId aiConfigured tracks { id name } rounds { configuration { round { id name blind status }
			criteria { id label } members { id } } submissions { id title trackNames participants { name } }
			progress { assigned } results { reviewerCount weightedAggregate } } }`,
		"speakerDirectory": `speakerDirectory { csv rows { contact { id } sessions { code } tasks { id } files { id } emails { id } } }`,
		"forms": `forms { id eventId eventName title internalName effectiveSubmissionLimit tracks { id name } formats { id }
			levels { id } questions { key } }`,
	}
	for field, sel := range fields {
		t.Run(field, func(t *testing.T) {
			page := w.b.gqlOK(w.b.acme, `{ events(first: 5) { edges { node { id `+sel+` } } } }`, nil)
			edges := page["events"].(map[string]any)["edges"].([]any)
			require.Len(t, edges, 5)
			ids := map[string]bool{}
			for _, e := range edges {
				node := e.(map[string]any)["node"].(map[string]any)
				ids[str(node, "id")] = true
				alone := w.b.gqlOK(w.b.acme, `query($e: ID!) { event(id: $e) { id `+sel+` } }`, map[string]any{"e": str(node, "id")})
				require.Equal(t, alone["event"], node, "%s of event %s", field, str(node, "id"))
			}
			require.True(t, ids[w.sessions] && ids[w.review], "the page holds the bench's events")
		})
	}
	// The page is not empty where it counts: the bench's events have what their models show.
	data := w.b.gqlOK(w.b.acme, `query($s: ID!, $r: ID!) { s: event(id: $s) { agenda { sessions { id } } speakerDirectory { rows { sessions { id } } } }
		r: event(id: $r) { evaluation { rounds { results { submission { id } } } } } }`, map[string]any{"s": w.sessions, "r": w.review})
	require.NotEmpty(t, data["s"].(map[string]any)["agenda"].(map[string]any)["sessions"])
	require.NotEmpty(t, data["s"].(map[string]any)["speakerDirectory"].(map[string]any)["rows"])
	rounds := data["r"].(map[string]any)["evaluation"].(map[string]any)["rounds"].([]any)
	require.NotEmpty(t, rounds)
	require.NotEmpty(t, rounds[0].(map[string]any)["results"])
}
