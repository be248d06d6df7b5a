package email

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// sample is the data every template is rendered with; fields a template does not use are ignored.
func sample(name string) Data {
	d := Data{
		EventName: "GopherCon EU", FirstName: "Ada", Link: "https://podium.example.test/portal",
		SessionTitle: "Go <generics> & you", Message: "We are sorry.\nThe room flooded.",
		Calendar: true, When: "10 September 2027, 09:00 CEST", Room: "Hall A",
		RoundName: "First round", Count: 3,
		URL: "https://hooks.example.test/podium?a=1&b=<2>", Reason: "receiver answered 500 <boom>",
	}
	if name == AgendaChanged {
		d.Changes = []ChangeLine{
			{Title: "Go <generics> & you", Detail: "moved to Hall A, Fri, Sep 10, 2027, 11:00 AM–11:45 AM CEST (was Annex, Fri, Sep 10, 2027, 9:00 AM–9:45 AM CEST)"},
			{Title: "Fuzzing", Detail: "removed from the agenda"},
		}
	}
	if name == ReviewReminder {
		d.Link = "https://podium.example.test/reviews"
	}
	if name == Campaign {
		// An organizer's own text, merge tokens already replaced.
		d.Subject = "News for Ada <Lovelace> &\r\nBcc: someone"
		d.Message = "Hi Ada,\n\nGo <generics> & you is on.\nYour portal: https://podium.example.test/portal"
	}
	return d
}

// TestGolden renders every template and compares subject, text and HTML with testdata; run
// `go test ./graph/email -update` after an intended change and review the diff.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := Render(name, sample(name))
			require.NoError(t, err)
			got := "Subject: " + r.Subject + "\n\n--- text\n" + r.Text + "\n--- html\n" + r.HTML
			path := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "missing golden file; run with -update")
			require.Equal(t, string(want), got)

			// Every email names the event, greets the recipient and links somewhere. A co-speaker
			// invitation greets nobody by name: the only name it has is one the submitter typed.
			greeting := "Hi Ada,"
			if name == CFPCoSpeaker {
				greeting = "Hello,"
				require.NotContains(t, r.Subject, "generics", "no typed text in its subject")
			}
			require.Contains(t, r.Text, greeting)
			require.Contains(t, r.HTML, "GopherCon EU")
			require.Contains(t, r.Text, "https://podium.example.test/")
			require.NotContains(t, r.Subject, "\n")
			// HTML escapes what organizers typed.
			require.NotContains(t, r.HTML, "<generics>")
		})
	}
}

func TestRenderRefusesUnknownTemplates(t *testing.T) {
	t.Parallel()
	_, err := Render("nope", Data{})
	require.ErrorContains(t, err, `no template "nope"`)
}

func TestEveryTemplateFileIsUsed(t *testing.T) {
	t.Parallel()
	entries, err := files.ReadDir("templates")
	require.NoError(t, err)
	known := map[string]bool{"layout": true}
	for _, n := range Names {
		known[n] = true
	}
	for _, e := range entries {
		base := strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".txt"), ".html")
		require.True(t, known[base], "%s is not in Names", e.Name())
	}
}
