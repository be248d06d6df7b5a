package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// SpeakerAvailability is when a speaker can speak at an event (docs/agenda.md "Speaker
// availability"): no intervals means throughout the event.
type SpeakerAvailability struct {
	EventID             string                 `json:"eventId"`
	ContactID           string                 `json:"contactId"`
	Timezone            string                 `json:"timezone"`
	AvailableThroughout bool                   `json:"availableThroughout"`
	Intervals           []AvailabilityInterval `json:"intervals"`
}

// AvailabilityInterval is one stretch of a speaker's availability: startsAt and endsAt in UTC,
// localStart and localEnd the same instants in the event's time zone.
type AvailabilityInterval struct {
	StartsAt   string `json:"startsAt"`
	EndsAt     string `json:"endsAt"`
	LocalStart string `json:"localStart"`
	LocalEnd   string `json:"localEnd"`
}

func (a *API) getSpeakerAvailability(ctx context.Context, q *request) (any, error) {
	return toRESTAvailability(a.ops.SpeakerAvailability(ctx, q.param("eventId"), q.param("contactId")))
}

func (a *API) setSpeakerAvailability(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SpeakerAvailabilityInput](q)
	if err != nil {
		return nil, err
	}
	return toRESTAvailability(a.ops.SetSpeakerAvailability(ctx, q.param("eventId"), q.param("contactId"), in))
}

func toRESTAvailability(m *model.Availability, err error) (*SpeakerAvailability, error) {
	if err != nil {
		return nil, err
	}
	out := &SpeakerAvailability{EventID: m.EventID, ContactID: m.ContactID, Timezone: m.Timezone,
		AvailableThroughout: m.AvailableThroughout, Intervals: make([]AvailabilityInterval, len(m.Intervals))}
	for i, x := range m.Intervals {
		out.Intervals[i] = AvailabilityInterval{StartsAt: scalar.FormatTime(x.StartsAt), EndsAt: scalar.FormatTime(x.EndsAt),
			LocalStart: x.LocalStart, LocalEnd: x.LocalEnd}
	}
	return out, nil
}
