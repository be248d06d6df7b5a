package ai_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/ai"
)

func TestProposeAgendaCallsTheTool(t *testing.T) {
	c, req, body := provider(t, http.StatusOK, `{"content":[
		{"type":"tool_use","name":"other","input":{"placements":[]}},
		{"type":"tool_use","name":"propose_agenda","input":{"placements":[
			{"submissionId":"sub_1","roomId":"room_1","startsAt":"2027-09-10T06:00:00Z","endsAt":"2027-09-10T06:30:00Z","reason":"r","extra":1}]}}]}`)
	got, err := c.ProposeAgenda(context.Background(), `{"sessions":[]}`)
	require.NoError(t, err)
	require.Equal(t, []ai.ProposedPlacement{{SubmissionID: "sub_1", RoomID: "room_1", StartsAt: "2027-09-10T06:00:00Z",
		EndsAt: "2027-09-10T06:30:00Z", Reason: "r"}}, got)
	require.Equal(t, "/v1/messages", req.URL.Path)
	require.Equal(t, ai.AgendaSystem, (*body)["system"])
	require.Equal(t, map[string]any{"type": "tool", "name": "propose_agenda"}, (*body)["tool_choice"])
	tools := (*body)["tools"].([]any)
	require.Len(t, tools, 1)
	require.Equal(t, "propose_agenda", tools[0].(map[string]any)["name"])
	require.Equal(t, []any{map[string]any{"role": "user", "content": `{"sessions":[]}`}}, (*body)["messages"])
	require.EqualValues(t, 8192, (*body)["max_tokens"])
}

func TestProposeAgendaFailures(t *testing.T) {
	for name, tc := range map[string]struct {
		status    int
		reply     string
		message   string
		retryable bool
	}{
		"Overloaded":  {529, `{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`, "The AI provider refused the request (HTTP 529)", true},
		"BadKey":      {http.StatusUnauthorized, `{}`, "The AI provider refused the request (HTTP 401)", false},
		"NotJSON":     {http.StatusOK, `<html>`, "The AI provider returned an invalid agenda response", false},
		"NoTool":      {http.StatusOK, `{"content":[{"type":"text","text":"no"}]}`, "The AI provider did not return an agenda proposal", false},
		"NoInput":     {http.StatusOK, `{"content":[{"type":"tool_use","name":"propose_agenda"}]}`, "The AI provider did not return an agenda proposal", false},
		"NoList":      {http.StatusOK, `{"content":[{"type":"tool_use","name":"propose_agenda","input":{}}]}`, "The AI provider returned an invalid agenda proposal", false},
		"WrongShape":  {http.StatusOK, `{"content":[{"type":"tool_use","name":"propose_agenda","input":{"placements":[1]}}]}`, "The AI provider returned an invalid agenda proposal", false},
		"WrongString": {http.StatusOK, `{"content":[{"type":"tool_use","name":"propose_agenda","input":{"placements":"x"}}]}`, "The AI provider returned an invalid agenda proposal", false},
	} {
		t.Run(name, func(t *testing.T) {
			c, _, _ := provider(t, tc.status, tc.reply)
			_, err := c.ProposeAgenda(context.Background(), "p")
			var pe *ai.Error
			require.ErrorAs(t, err, &pe)
			require.Equal(t, tc.message, pe.Message)
			require.Equal(t, tc.retryable, pe.Retryable())
		})
	}
}
