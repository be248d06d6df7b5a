package web

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/podium/podium/ent"
)

// Theme is an event's look on its pages: its name and logo in the header, a light or dark
// palette and an accent colour.
//
// An event's theme field is free text (up to 1,000 characters). Pages read it as either a
// single word — "light", "dark" or "auto" — or a JSON object
// {"mode": "light|dark|auto", "primaryColor": "#rrggbb"}. Anything else, and any value that is
// not one of these, falls back to the default: a value never reaches the page's CSS unless it is
// a known word or a #rrggbb colour.
type Theme struct {
	// EventName is shown in the header; empty on pages of no event.
	EventName string
	// LogoURL is the event's logo; empty for none.
	LogoURL string
	// Mode is "light", "dark" or "auto" (follows the browser).
	Mode string
	// Primary is the accent colour as #rrggbb; empty for Podium's.
	Primary string
}

var hexColour = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// ThemeOf reads an event's theme field (see Theme); logoURL may be empty.
func ThemeOf(eventName, theme, logoURL string) Theme {
	t := Theme{EventName: firstLine(eventName), Mode: "auto"}
	if strings.HasPrefix(logoURL, "https://") || strings.HasPrefix(logoURL, "/") {
		t.LogoURL = logoURL
	}
	raw := strings.TrimSpace(theme)
	var obj struct {
		Mode         string `json:"mode"`
		PrimaryColor string `json:"primaryColor"`
	}
	if strings.HasPrefix(raw, "{") && json.Unmarshal([]byte(raw), &obj) == nil {
		raw = obj.Mode
		if hexColour.MatchString(obj.PrimaryColor) {
			t.Primary = strings.ToLower(obj.PrimaryColor)
		}
	}
	switch raw {
	case "light", "dark":
		t.Mode = raw
	}
	return t
}

// ThemeOfEvent is the theme of ev's pages: its name, logo and theme field.
func ThemeOfEvent(ev *ent.Event) Theme { return themeOfEvent(ev) }
