package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestThemeOfKeepsOnlyKnownValues(t *testing.T) {
	cases := []struct {
		theme, logo string
		want        Theme
	}{
		{"", "", Theme{EventName: "Conf", Mode: "auto"}},
		{"dark", "https://x.test/l.png", Theme{EventName: "Conf", Mode: "dark", LogoURL: "https://x.test/l.png"}},
		{`{"mode":"light","primaryColor":"#1D6B4C"}`, "javascript:alert(1)", Theme{EventName: "Conf", Mode: "light", Primary: "#1d6b4c"}},
		{`{"mode":"neon","primaryColor":"red;}body{display:none"}`, "", Theme{EventName: "Conf", Mode: "auto"}},
		{"</style><script>", "", Theme{EventName: "Conf", Mode: "auto"}},
	}
	for _, c := range cases {
		if got := ThemeOf("Conf\nsecond line", c.theme, c.logo); got != c.want {
			t.Errorf("ThemeOf(%q, %q) = %+v, want %+v", c.theme, c.logo, got, c.want)
		}
	}
}

func TestRenderEscapesAndSetsHeaders(t *testing.T) {
	w := httptest.NewRecorder()
	Render(w, http.StatusBadRequest, Page{Title: "<script>t</script>", Error: `"><img src=x onerror=1>`,
		Theme: ThemeOf("Conf", `{"primaryColor":"#abcdef"}`, ""), Content: "link", Data: &Link{Href: "javascript:alert(1)", Text: "go"}})
	body := w.Body.String()
	if w.Code != http.StatusBadRequest || strings.Contains(body, "<script>t") || strings.Contains(body, "<img src=x") {
		t.Fatalf("status %d, body not escaped:\n%s", w.Code, body)
	}
	if strings.Contains(body, `href="javascript:`) {
		t.Errorf("a javascript: URL reached an href:\n%s", body)
	}
	if !strings.Contains(body, AccentPath+"abcdef.css") || !strings.Contains(body, StylesheetPath) {
		t.Errorf("stylesheets missing:\n%s", body)
	}
	for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "Referrer-Policy", "Cache-Control"} {
		if w.Header().Get(h) == "" {
			t.Errorf("header %s missing", h)
		}
	}
}

func TestRenderUnknownTemplateIsAnErrorPage(t *testing.T) {
	w := httptest.NewRecorder()
	Render(w, http.StatusOK, Page{Title: "x", Content: "no-such-template"})
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "could not be shown") {
		t.Fatalf("got %d:\n%s", w.Code, w.Body.String())
	}
}

func TestAccentServesOnlyColours(t *testing.T) {
	for path, want := range map[string]int{
		AccentPath + "1d6b4c.css":    http.StatusOK,
		AccentPath + "1d6b4c":        http.StatusNotFound,
		AccentPath + "zzzzzz.css":    http.StatusNotFound,
		AccentPath + "1d6b4c;x.css":  http.StatusNotFound,
		AccentPath + "../secret.css": http.StatusNotFound,
	} {
		w := httptest.NewRecorder()
		Accent(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != want {
			t.Errorf("%s: %d, want %d", path, w.Code, want)
		}
	}
}

func TestProtectRefusesCrossOriginPosts(t *testing.T) {
	h := Protect(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	r := httptest.NewRequest(http.MethodPost, "http://podium.test/x", nil)
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	w := httptest.NewRecorder()
	h(w, r)
	if w.Code != http.StatusForbidden {
		t.Fatalf("cross-site POST: %d", w.Code)
	}
	r = httptest.NewRequest(http.MethodPost, "http://podium.test/x", nil)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	w = httptest.NewRecorder()
	h(w, r)
	if w.Code != http.StatusNoContent {
		t.Fatalf("same-origin POST: %d", w.Code)
	}
}
