package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// AgendaSystem is what the provider is told to do with an agenda request.
const AgendaSystem = "You schedule conference sessions. Return every session exactly once. Use only the supplied " +
	"room ids and event days, preserve exact durations, start and end on 5-minute marks within the daily window " +
	"(local time), never overlap a block of the room or of every room (roomId null), keep each speaker within their " +
	"availability when they gave any, and never overlap a room or speaker. Reasons must be one concise line. " +
	"Respect all criteria rules when possible."

// agendaTool is the one tool the provider must call: its input is the proposal.
const agendaTool = "propose_agenda"

// ProposedPlacement is one placement as the provider wrote it, unchecked.
type ProposedPlacement struct {
	SubmissionID string `json:"submissionId"`
	RoomID       string `json:"roomId"`
	StartsAt     string `json:"startsAt"`
	EndsAt       string `json:"endsAt"`
	Reason       string `json:"reason"`
}

// agendaSchema is the JSON Schema of propose_agenda's input.
var agendaSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"placements": map[string]any{
			"type": "array",
			"items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"submissionId": map[string]any{"type": "string"}, "roomId": map[string]any{"type": "string"},
					"startsAt": map[string]any{"type": "string"}, "endsAt": map[string]any{"type": "string"},
					"reason": map[string]any{"type": "string"},
				},
				"required":             []string{"submissionId", "roomId", "startsAt", "endsAt", "reason"},
				"additionalProperties": false,
			},
		},
	},
	"required":             []string{"placements"},
	"additionalProperties": false,
}

type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}

type toolRequest struct {
	request
	Tools      []tool            `json:"tools"`
	ToolChoice map[string]string `json:"tool_choice"`
}

// ProposeAgenda asks the provider for an agenda: prompt is the JSON of the event's rooms, days,
// rules and sessions, and the answer is the input of its propose_agenda tool call. The placements
// are not checked here; that is the caller's business (package solver).
func (c *Client) ProposeAgenda(ctx context.Context, prompt string) ([]ProposedPlacement, error) {
	body, err := json.Marshal(toolRequest{
		request: request{Model: c.model, MaxTokens: 8192, Temperature: 0.1, System: AgendaSystem,
			Messages: []message{{Role: "user", Content: prompt}}},
		Tools:      []tool{{Name: agendaTool, Description: "Return the complete proposed conference agenda.", InputSchema: agendaSchema}},
		ToolChoice: map[string]string{"type": "tool", "name": agendaTool},
	})
	if err != nil {
		return nil, err
	}
	raw, status, err := c.post(ctx, body)
	if err != nil {
		return nil, err
	}
	var out response
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, &Error{Message: "The AI provider returned an invalid agenda response", Detail: err.Error(), Status: status}
	}
	for _, block := range out.Content {
		if block.Type != "tool_use" || block.Name != agendaTool {
			continue
		}
		if len(block.Input) == 0 || string(block.Input) == "null" {
			break
		}
		var in struct {
			Placements *[]ProposedPlacement `json:"placements"`
		}
		if err := json.Unmarshal(block.Input, &in); err != nil || in.Placements == nil {
			detail := "no placements"
			if err != nil {
				detail = err.Error()
			}
			return nil, &Error{Message: "The AI provider returned an invalid agenda proposal", Detail: detail, Status: status}
		}
		return *in.Placements, nil
	}
	return nil, &Error{Message: "The AI provider did not return an agenda proposal", Status: status}
}

// post sends a Messages API request and returns a 2xx answer's body; anything else is an *Error.
func (c *Client) post(ctx context.Context, body []byte) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, &Error{Message: "The AI provider URL is not valid", Detail: err.Error()}
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", c.key)
	req.Header.Set("anthropic-version", apiVersion)
	res, err := c.http.Do(req)
	if err != nil {
		return nil, 0, &Error{Message: "The AI provider could not be reached", Detail: err.Error()}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return nil, res.StatusCode, &Error{Message: "The AI provider's answer could not be read", Detail: err.Error(), Status: res.StatusCode}
	}
	if res.StatusCode/100 != 2 {
		var out response
		detail := strings.TrimSpace(string(raw))
		if json.Unmarshal(raw, &out) == nil && out.Error != nil {
			detail = out.Error.Type + ": " + out.Error.Message
		}
		return nil, res.StatusCode, &Error{Message: fmt.Sprintf("The AI provider refused the request (HTTP %d)", res.StatusCode),
			Detail: truncate(detail, 500), Status: res.StatusCode}
	}
	return raw, res.StatusCode, nil
}
