package operation

import (
	"testing"

	"github.com/podium/podium/graph/model"
	"github.com/stretchr/testify/require"
)

// TestPublicView: a session is public only with an approved title, and shows the snapshot, never
// a live value; a speaker only with an approved name that is no part of their address.
func TestPublicView(t *testing.T) {
	t.Parallel()

	t.Run("Session", func(t *testing.T) {
		t.Parallel()
		for _, snapshot := range []map[string]any{nil, {}, {"title": "  "}, {"title": 7}, {"description": "no title"}} {
			_, ok := publicContentOf(snapshot)
			require.False(t, ok, "%v", snapshot)
		}
		c, ok := publicContentOf(map[string]any{"title": "T", "formatId": "fmt_1", "levelId": nil})
		require.True(t, ok)
		require.Equal(t, PublicContent{Title: "T", FormatID: new("fmt_1")}, c, "a missing description is empty, a null level none")
	})

	t.Run("Speaker", func(t *testing.T) {
		t.Parallel()
		for _, name := range [][3]string{
			{"", "Lovelace", "ada@example.test"},
			{"ada@example.test", "", "ada@example.test"},
			{"Ada", "x@example.test", "ada@example.test"},
			{"ada", "-", "ada@example.test"},
			{"ADA", "", "ada@example.test"},
			{" ada ", " - ", "ada@example.test"},
		} {
			require.True(t, placeholderName(name[0], name[1], name[2]), "%q", name)
			_, ok := publicSpeakerOf("ctc_1", name[2], nil, nil, map[string]any{"firstName": name[0], "lastName": name[1]})
			require.False(t, ok, "%q", name)
		}
		for _, name := range [][3]string{{"Ada", "Lovelace", "ada@example.test"}, {"ada", "Lovelace", "ada@example.test"},
			{"Ada", "-", "countess@example.test"}, {"Plato", "", "p@example.test"}} {
			require.False(t, placeholderName(name[0], name[1], name[2]), "%q", name)
		}
		_, ok := publicSpeakerOf("ctc_1", "ada@example.test", nil, nil, map[string]any{})
		require.False(t, ok, "nothing approved")
		sp, ok := publicSpeakerOf("ctc_1", "countess@example.test", nil, new("Engines"), map[string]any{
			"firstName": "Ada", "lastName": "-", "bio": "Approved", "headshotUrl": nil})
		require.True(t, ok)
		require.Equal(t, &model.ProgramSpeaker{ID: "ctc_1", FirstName: "Ada", Company: new("Engines"), Bio: new("Approved")}, sp)
	})
}
