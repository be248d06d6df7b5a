package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/rest"
)

// TestDecideReprograms: accepting one submission may place it in another format and track of the
// event's library (programFormatId, programTrackId, as the original's decide takes them); the
// timeline records it and the decision email tells the speaker. Anything but the acceptance of
// one submission, or a format or track of another event, is refused and changes nothing.
func TestDecideReprograms(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	workshop := str(b.saveItem(b.acme, w.event, map[string]any{"kind": "format", "name": "Workshop", "durationMinutes": 90}), "id")
	elsewhere := str(b.createEvent(b.acme, "Elsewhere"), "id")
	theirFormat := str(b.saveItem(b.acme, elsewhere, map[string]any{"kind": "format", "name": "Keynote"}), "id")
	theirTrack := str(b.saveItem(b.acme, elsewhere, map[string]any{"kind": "track", "name": "Other"}), "id")
	p1, p2 := str(b.propose(w, "Generics", w.ada), "id"), str(b.propose(w, "Channels", w.alan), "id")
	decide := func(body map[string]any) response {
		return b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/submissions/decide", b.acme, body)
	}

	for name, body := range map[string]map[string]any{
		"decline":        {"submissionIds": []any{p1}, "decision": "decline", "programFormatId": workshop},
		"two":            {"submissionIds": []any{p1, p2}, "decision": "accept", "programTrackId": w.track1},
		"their format":   {"submissionIds": []any{p1}, "decision": "accept", "programFormatId": theirFormat},
		"their track":    {"submissionIds": []any{p1}, "decision": "accept", "programFormatId": workshop, "programTrackId": theirTrack},
		"made-up format": {"submissionIds": []any{p1}, "decision": "accept", "programFormatId": "fmt_0000000000000000000000"},
	} {
		r := decide(body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", name, r.Raw)
		require.Equal(t, "invalid_input", r.ErrCode(), name)
	}
	require.Equal(t, 2, b.count(`SELECT count(*) FROM submissions WHERE id = ANY($1) AND status = 'pending' AND format_id = $2`,
		[]string{p1, p2}, w.format), "a refused decision changed a submission")
	require.Equal(t, 2, b.count(`SELECT count(*) FROM submission_tracks WHERE submission_id = ANY($1) AND track_id = $2`,
		[]string{p1, p2}, w.track2))

	r := decide(map[string]any{"submissionIds": []any{p1}, "decision": "accept", "programFormatId": workshop, "programTrackId": w.track1})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, 1, b.count(`SELECT count(*) FROM submissions WHERE id = $1 AND status = 'accepted' AND format_id = $2`, p1, workshop))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM submission_tracks WHERE submission_id = $1`, p1))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM submission_tracks WHERE submission_id = $1 AND track_id = $2`, p1, w.track1))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM timeline_entries WHERE submission_id = $1 AND label = $2`,
		p1, "Programmed as Workshop (90 min), track Go"))
	// The approved snapshot holds the format it was accepted into.
	require.Equal(t, 1, b.count(`SELECT count(*) FROM submissions WHERE id = $1 AND approved_snapshot->>'formatId' = $2`, p1, workshop))

	// Accepting again into the same format and track changes nothing more.
	r = decide(map[string]any{"submissionIds": []any{p1}, "decision": "accept", "programFormatId": workshop, "programTrackId": w.track1})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, 1, b.count(`SELECT count(*) FROM timeline_entries WHERE submission_id = $1 AND label LIKE 'Programmed as%'`, p1))

	r = b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/submissions/inform", b.acme,
		map[string]any{"submissionIds": []any{p1}})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	const subject = "Your proposal for World was accepted"
	require.Eventually(t, func() bool { return len(mailsWithSubject(b.sink, "ada@example.test", subject)) == 1 },
		15*time.Second, 20*time.Millisecond)
	m := mailsWithSubject(b.sink, "ada@example.test", subject)[0]
	require.Contains(t, strings.Join(strings.Fields(m.Text), " "), "It is programmed as Workshop (90 min), track Go, rather than as submitted.")
	require.Contains(t, m.HTML, "It is programmed as Workshop (90 min), track Go, rather than as submitted.")
}
