package email

import (
	"context"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emailoverride"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/graph/access/secret"
)

// AccessPath is a contact's access link into the speaker portal (docs/portal.md) with the
// placeholder of its token: the delivery worker mints a token for the contact in its place in the
// message it sends (jobs.MintAccessLink), so the email log never holds one.
const AccessPath = "/portal/access/" + secret.AccessPlaceholder

// Brand is an event's look in its emails: its logo and an accent colour.
type Brand struct {
	// LogoURL is the event's logo, https only; empty for none (the event's name is shown).
	LogoURL string
	// Colour is the theme's primary colour as #rrggbb when white text on it is legible; empty for
	// Podium's.
	Colour string
}

// defaultAccent is Podium's accent: white on it has a contrast of 6.6:1.
const defaultAccent = "#1d6b4c"

// Accent is the colour of buttons and of the top border.
func (b Brand) Accent() string {
	if b.Colour != "" {
		return b.Colour
	}
	return defaultAccent
}

var hexColour = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// BrandOf reads an event's theme and logo as its pages do (rest/web Theme): the theme may be a JSON
// object with a "primaryColor" of the form #rrggbb. A colour on which white text would fail the
// WCAG AA contrast of 4.5:1 is not used, nor a logo that is not an https URL (mail clients do not
// load other ones).
func BrandOf(theme, logoURL *string) Brand {
	var b Brand
	if logoURL != nil && strings.HasPrefix(*logoURL, "https://") {
		b.LogoURL = *logoURL
	}
	if theme == nil {
		return b
	}
	var obj struct {
		PrimaryColor string `json:"primaryColor"`
	}
	raw := strings.TrimSpace(*theme)
	if strings.HasPrefix(raw, "{") && json.Unmarshal([]byte(raw), &obj) == nil &&
		hexColour.MatchString(obj.PrimaryColor) && contrastWithWhite(obj.PrimaryColor) >= 4.5 {
		b.Colour = strings.ToLower(obj.PrimaryColor)
	}
	return b
}

// contrastWithWhite is the WCAG contrast ratio of white on the colour #rrggbb.
func contrastWithWhite(hex string) float64 {
	var l float64
	for i, weight := range []float64{0.2126, 0.7152, 0.0722} {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		c := float64(v) / 255
		if c <= 0.03928 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += weight * c
	}
	return 1.05 / (l + 0.05)
}

// Look is what the emails of some events look like: each event's brand and own wordings.
type Look struct {
	brands   map[string]Brand
	wordings map[string]map[string]Wording
}

// LoadLook reads the brand and wordings of events, in two statements however many emails use
// them. A nil *Look is Podium's look.
func LoadLook(ctx context.Context, c *ent.Client, events ...string) (*Look, error) {
	l := &Look{brands: map[string]Brand{}, wordings: map[string]map[string]Wording{}}
	if len(events) == 0 {
		return l, nil
	}
	evs, err := c.Event.Query().Where(event.IDIn(events...)).
		Select(event.FieldID, event.FieldTheme, event.FieldLogoURL).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, ev := range evs {
		l.brands[ev.ID] = BrandOf(ev.Theme, ev.LogoURL)
	}
	ws, err := c.EmailOverride.Query().Where(emailoverride.EventIDIn(events...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, w := range ws {
		if l.wordings[w.EventID] == nil {
			l.wordings[w.EventID] = map[string]Wording{}
		}
		l.wordings[w.EventID][w.Template] = Wording{Subject: w.Subject, Body: w.Body}
	}
	return l, nil
}

// WithWording returns a copy of l in which the event's template has the wording w (a preview of
// an unsaved wording).
func (l *Look) WithWording(eventID, template string, w Wording) *Look {
	out := &Look{brands: map[string]Brand{}, wordings: map[string]map[string]Wording{}}
	if l != nil {
		out.brands = l.brands
		for ev, ws := range l.wordings {
			out.wordings[ev] = ws
		}
	}
	ws := map[string]Wording{}
	for k, v := range out.wordings[eventID] {
		ws[k] = v
	}
	ws[template] = w
	out.wordings[eventID] = ws
	return out
}

func (l *Look) brand(eventID string) Brand {
	if l == nil {
		return Brand{}
	}
	return l.brands[eventID]
}

// wording is the event's wording of template, nil for Podium's. Only emails of Placeholders take
// one.
func (l *Look) wording(eventID, template string) *Wording {
	if l == nil {
		return nil
	}
	if _, ok := Placeholders[template]; !ok {
		return nil
	}
	w, ok := l.wordings[eventID][template]
	if !ok {
		return nil
	}
	return &w
}

// eventsOf lists the events of emails, once each.
func eventsOf(emails []Email) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range emails {
		if e.EventID != "" && !seen[e.EventID] {
			seen[e.EventID] = true
			out = append(out, e.EventID)
		}
	}
	return out
}
