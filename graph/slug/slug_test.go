package slug

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMake(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"GopherCon EU 2027":     "gophercon-eu-2027",
		"  --Hello,  World!-- ": "hello-world",
		"Ünïcode Ça va":         "n-code-a-va",
		"!!!":                   "event",
		"":                      "event",
		"a_b.c":                 "a-b-c",
	} {
		require.Equal(t, want, Make(name, "event"), name)
	}
}

func TestUnique(t *testing.T) {
	t.Parallel()
	taken := map[string]bool{"conf": true, "conf-2": true}
	require.Equal(t, "conf-3", Unique("conf", func(s string) bool { return taken[s] }))
	require.Equal(t, "other", Unique("other", func(s string) bool { return taken[s] }))
}
