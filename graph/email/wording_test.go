package email

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckWording(t *testing.T) {
	t.Parallel()
	ok := []Wording{
		{Subject: "Hi {{firstName}}", Body: "{{ sessionTitle }} at {{eventName}}: {{link}}"},
		{Subject: "No placeholder", Body: "Plain words, a { brace } alone."},
	}
	for _, w := range ok {
		require.NoError(t, Check(SessionAccepted, w), w)
	}
	bad := map[string]Wording{
		"{{lastName}}":       {Subject: "Hi", Body: "Dear {{lastName}}"},
		"{{.FirstName}}":     {Subject: "Hi {{.FirstName}}", Body: "x"},
		`{{printf "%d" 1}}`:  {Subject: "Hi", Body: `{{printf "%d" 1}}`},
		"{{when}}":           {Subject: "{{when}}", Body: "x"}, // session_accepted has no slot
		"brace pair":         {Subject: "Hi", Body: "{{firstName}"},
		"one line":           {Subject: "Hi\nBcc: x", Body: "x"},
		"{{template \"x\"}}": {Subject: "Hi", Body: `{{template "x"}}`},
		"{{range .Changes}}": {Subject: "Hi", Body: "{{range .Changes}}"},
	}
	for want, w := range bad {
		err := Check(SessionAccepted, w)
		require.Error(t, err, want)
		require.Contains(t, err.Error(), want)
	}
	require.ErrorContains(t, Check(SignIn, Wording{Subject: "a", Body: "b"}), "cannot be reworded")
	require.ErrorContains(t, Check(WebhookDisabled, Wording{Subject: "a", Body: "b"}), "cannot be reworded")
}

func TestRenderWording(t *testing.T) {
	t.Parallel()
	d := sample(SessionAccepted)
	d.Link = "https://podium.example.test/auth/link?token=X&next=%2Fportal"
	r, err := renderWording(Wording{Subject: "  {{sessionTitle}}\t— {{eventName}} ",
		Body: "Dear {{firstName}},\n\n{{message}}\nOpen {{link}}.\r\n\nBye {{unknown}}"}, d)
	require.NoError(t, err)
	require.Equal(t, "Go <generics> & you — GopherCon EU", r.Subject)
	require.Equal(t, "Dear Ada,\n\nWe are sorry.\nThe room flooded.\nOpen "+d.Link+".\n\nBye \n", r.Text)
	require.Contains(t, r.HTML, "<title>Go &lt;generics&gt; &amp; you — GopherCon EU</title>")
	require.Contains(t, r.HTML, "<p>Dear Ada,</p>\n<p>We are sorry.<br>\nThe room flooded.<br>\nOpen "+
		`<a href="https://podium.example.test/auth/link?token=X&amp;next=%2Fportal">https://podium.example.test/auth/link?token=X&amp;next=%2Fportal</a>.</p>`)
	require.NotContains(t, r.HTML, "<generics>")
}

func TestDefaultWording(t *testing.T) {
	t.Parallel()
	for _, name := range Customizable {
		w, err := DefaultWording(name)
		require.NoError(t, err, name)
		require.NoError(t, Check(name, w), name)
		require.Contains(t, w.Body, "{{link}}", name)
	}
	w, err := DefaultWording(AgendaChanged)
	require.NoError(t, err)
	require.Contains(t, w.Body, "(version {{count}})")
	require.Contains(t, w.Body, "\n{{changes}}\n")
	_, err = DefaultWording(SignIn)
	require.Error(t, err)
}

func TestBrandOf(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	require.Equal(t, Brand{}, BrandOf(nil, nil))
	require.Equal(t, "#7c2d12", BrandOf(s(`{"primaryColor":"#7C2D12"}`), nil).Accent())
	require.Equal(t, defaultAccent, BrandOf(s(`{"primaryColor":"#fde047"}`), nil).Accent(), "white on yellow is illegible")
	require.Equal(t, defaultAccent, BrandOf(s(`{"primaryColor":"red;background:url(x)"}`), nil).Accent())
	require.Equal(t, defaultAccent, BrandOf(s("dark"), nil).Accent())
	require.Equal(t, "https://cdn.example.test/l.png", BrandOf(nil, s("https://cdn.example.test/l.png")).LogoURL)
	require.Empty(t, BrandOf(nil, s("/files/logo.png")).LogoURL)
	require.Empty(t, BrandOf(nil, s("javascript:alert(1)")).LogoURL)
	require.True(t, strings.HasPrefix(defaultAccent, "#"))
}
