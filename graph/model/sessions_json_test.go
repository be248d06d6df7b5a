package model

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/scalar"
)

// TestSessionAppendJSON holds the board's hand-written encoding equal to encoding/json's, as REST
// encodes (SetEscapeHTML(false)), for every field set and unset and for hostile strings.
func TestSessionAppendJSON(t *testing.T) {
	t.Parallel()
	hostile := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "line\nbreak\ttab\rret\b\f",
		"\x00\x01\x1f\x7f", "é ü 日本 🎤", "\u2028\u2029", "bad \xff\xfe utf-8 \xc3", "'; DROP TABLE sessions; --"}
	rng := rand.New(rand.NewPCG(34, 32))
	random := func() string {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return string(b)
	}
	pick := func() string {
		if rng.IntN(3) == 0 {
			return random()
		}
		return hostile[rng.IntN(len(hostile))]
	}
	at := scalar.At(time.Date(2026, 11, 24, 9, 30, 15, 123456789, time.UTC))
	for i := range 300 {
		s := &Session{ID: pick(), EventID: pick(), Code: pick(), Title: pick(), Description: pick(),
			Source: SessionSourceCfp, ContentReviewStatus: ContentReviewStatusApproved, CreatedAt: at,
			DeliverablesTotal: i, DeliverablesUploaded: -i, TasksTotal: 1 << 40, TasksDone: 3, PublicationApproved: i%2 == 0}
		if i%2 == 1 {
			s.Format, s.RoomID, s.RoomName = new(pick()), new(pick()), new(pick())
			s.StartsAt, s.EndsAt, s.CancelledAt = &at, &at, &at
			s.CancelledBy, s.Capacity = new(SessionCancelledByOrganizer), new(120)
			s.Source = SessionSourceManual
		}
		if i%3 != 0 {
			s.Tracks = []agenda.Track{{ID: pick(), Name: pick(), Color: pick()}, {ID: "trk", Name: "Go", Color: "#00ADD8"}}
			s.Speakers = []*SessionSpeaker{{ID: pick(), Name: pick(), Email: pick(), Role: "speaker", Position: i},
				{ID: "c", HeadshotURL: new(pick()), ConfirmedAt: &at}}
		} else if i%2 == 0 {
			s.Tracks, s.Speakers = []agenda.Track{}, []*SessionSpeaker{}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		require.Equal(t, want.String(), string(s.AppendJSON(nil))+"\n", "session %d", i)
	}
}
