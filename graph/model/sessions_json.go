package model

import (
	"strconv"
	"unicode/utf8"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/scalar"
)

// The session board is the largest answer Podium gives (2,000 sessions with their speakers and
// tracks: two megabytes), and encoding/json spent a third of its CPU on it: reflection over every
// field, and a second pass over each timestamp's MarshalJSON output. The AppendJSON methods write
// the same bytes directly; TestSessionAppendJSON holds them equal to encoding/json's (with
// SetEscapeHTML(false), as REST encodes) for every field, hostile strings included.

// AppendJSON appends s as encoding/json encodes it.
func (s *Session) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendJSONString(b, s.ID)
	b = append(b, `,"eventId":`...)
	b = AppendJSONString(b, s.EventID)
	b = append(b, `,"code":`...)
	b = AppendJSONString(b, s.Code)
	b = append(b, `,"title":`...)
	b = AppendJSONString(b, s.Title)
	b = append(b, `,"description":`...)
	b = AppendJSONString(b, s.Description)
	b = append(b, `,"format":`...)
	b = appendStringPtr(b, s.Format)
	b = append(b, `,"source":`...)
	b = AppendJSONString(b, string(s.Source))
	b = append(b, `,"tracks":`...)
	b = AppendTracksJSON(b, s.Tracks)
	b = append(b, `,"speakers":`...)
	if s.Speakers == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, sp := range s.Speakers {
			if i > 0 {
				b = append(b, ',')
			}
			b = sp.appendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, `,"startsAt":`...)
	b = appendTimestampPtr(b, s.StartsAt)
	b = append(b, `,"endsAt":`...)
	b = appendTimestampPtr(b, s.EndsAt)
	b = append(b, `,"roomId":`...)
	b = appendStringPtr(b, s.RoomID)
	b = append(b, `,"roomName":`...)
	b = appendStringPtr(b, s.RoomName)
	b = append(b, `,"deliverablesTotal":`...)
	b = strconv.AppendInt(b, int64(s.DeliverablesTotal), 10)
	b = append(b, `,"deliverablesUploaded":`...)
	b = strconv.AppendInt(b, int64(s.DeliverablesUploaded), 10)
	b = append(b, `,"tasksTotal":`...)
	b = strconv.AppendInt(b, int64(s.TasksTotal), 10)
	b = append(b, `,"tasksDone":`...)
	b = strconv.AppendInt(b, int64(s.TasksDone), 10)
	b = append(b, `,"contentReviewStatus":`...)
	b = AppendJSONString(b, string(s.ContentReviewStatus))
	b = append(b, `,"publicationApproved":`...)
	b = strconv.AppendBool(b, s.PublicationApproved)
	b = append(b, `,"cancelledAt":`...)
	b = appendTimestampPtr(b, s.CancelledAt)
	b = append(b, `,"cancelledBy":`...)
	if s.CancelledBy == nil {
		b = append(b, "null"...)
	} else {
		b = AppendJSONString(b, string(*s.CancelledBy))
	}
	b = append(b, `,"capacity":`...)
	if s.Capacity == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*s.Capacity), 10)
	}
	b = append(b, `,"createdAt":`...)
	b = appendTimestamp(b, s.CreatedAt)
	b = append(b, `,"decisionSent":`...)
	b = strconv.AppendBool(b, s.DecisionSent)
	return append(b, '}')
}

func (sp *SessionSpeaker) appendJSON(b []byte) []byte {
	if sp == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"id":`...)
	b = AppendJSONString(b, sp.ID)
	b = append(b, `,"name":`...)
	b = AppendJSONString(b, sp.Name)
	b = append(b, `,"email":`...)
	b = AppendJSONString(b, sp.Email)
	b = append(b, `,"role":`...)
	b = AppendJSONString(b, sp.Role)
	b = append(b, `,"position":`...)
	b = strconv.AppendInt(b, int64(sp.Position), 10)
	b = append(b, `,"headshotUrl":`...)
	b = appendStringPtr(b, sp.HeadshotURL)
	b = append(b, `,"confirmedAt":`...)
	b = appendTimestampPtr(b, sp.ConfirmedAt)
	return append(b, '}')
}

// AppendTracksJSON appends tracks as encoding/json encodes them.
func AppendTracksJSON(b []byte, tracks []agenda.Track) []byte {
	if tracks == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, t := range tracks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = AppendJSONString(b, t.ID)
		b = append(b, `,"name":`...)
		b = AppendJSONString(b, t.Name)
		b = append(b, `,"color":`...)
		b = AppendJSONString(b, t.Color)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendJSONString(b, *s)
}

// appendTimestamp appends t as scalar.Timestamp.MarshalJSON writes it.
func appendTimestamp(b []byte, t scalar.Timestamp) []byte {
	return strconv.AppendQuote(b, scalar.FormatTime(t.Time))
}

func appendTimestampPtr(b []byte, t *scalar.Timestamp) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return appendTimestamp(b, *t)
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, escaped as encoding/json escapes it with
// SetEscapeHTML(false): quote, backslash and control characters; U+2028 and U+2029; invalid
// UTF-8 as U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
