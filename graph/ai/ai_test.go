package ai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/ai"
)

// provider is a fake Messages API answering with reply, recording the last request.
func provider(t *testing.T, status int, reply string) (*ai.Client, *http.Request, *map[string]any) {
	t.Helper()
	var got http.Request
	body := map[string]any{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = *r
		raw, _ := io.ReadAll(r.Body)
		require.NoError(t, json.Unmarshal(raw, &body))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	return ai.New(ai.Config{APIKey: "sk-test", BaseURL: srv.URL, Model: "claude-test"}), &got, &body
}

func textReply(text string) string {
	raw, _ := json.Marshal(map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": text}}})
	return string(raw)
}

func TestNewWithoutKeyIsNotConfigured(t *testing.T) {
	require.Nil(t, ai.New(ai.Config{}))
	require.Nil(t, ai.New(ai.Config{APIKey: "  "}))
	c := ai.New(ai.Config{APIKey: "k"})
	require.Equal(t, ai.DefaultModel, c.Model())
}

func TestReviewSpeaksTheMessagesAPI(t *testing.T) {
	c, req, body := provider(t, http.StatusOK, textReply(`{"score": 4.5, "reasoning": "Clear and useful."}`))
	r, err := c.Review(context.Background(), "system words", "the proposal")
	require.NoError(t, err)
	require.Equal(t, ai.Review{Score: 4.5, Reasoning: "Clear and useful."}, r)

	require.Equal(t, http.MethodPost, req.Method)
	require.Equal(t, "/v1/messages", req.URL.Path)
	require.Equal(t, "sk-test", req.Header.Get("x-api-key"))
	require.Equal(t, "2023-06-01", req.Header.Get("anthropic-version"))
	require.Equal(t, "application/json", req.Header.Get("content-type"))
	require.Equal(t, "claude-test", (*body)["model"])
	require.Equal(t, "system words", (*body)["system"])
	require.Equal(t, []any{map[string]any{"role": "user", "content": "the proposal"}}, (*body)["messages"])
	require.NotZero(t, (*body)["max_tokens"])
}

func TestReviewToleratesProseAndFences(t *testing.T) {
	for name, text := range map[string]string{
		"Bare":        `{"score": 3, "reasoning": "ok"}`,
		"Prose":       "Here is my review:\n{\"score\": 3, \"reasoning\": \"ok\"}\nThanks!",
		"Fence":       "```json\n{\"score\": 3, \"reasoning\": \"ok\"}\n```",
		"PlainFence":  "Review:\n```\n{\"score\":3,\"reasoning\":\"ok\"}\n```",
		"Whitespaces": "\n\n  {\"reasoning\": \" ok \", \"score\": 3}  \n",
	} {
		t.Run(name, func(t *testing.T) {
			c, _, _ := provider(t, http.StatusOK, textReply(text))
			r, err := c.Review(context.Background(), "s", "p")
			require.NoError(t, err)
			require.Equal(t, ai.Review{Score: 3, Reasoning: "ok"}, r)
		})
	}
}

func TestReviewReadsToolUse(t *testing.T) {
	c, _, _ := provider(t, http.StatusOK, `{"content":[{"type":"tool_use","name":"review","input":{"score":2,"reasoning":"thin"}}]}`)
	r, err := c.Review(context.Background(), "s", "p")
	require.NoError(t, err)
	require.Equal(t, ai.Review{Score: 2, Reasoning: "thin"}, r)
}

func TestReviewFailures(t *testing.T) {
	for name, tc := range map[string]struct {
		status    int
		reply     string
		retryable bool
	}{
		"ServerError":  {http.StatusInternalServerError, `{"type":"error","error":{"type":"api_error","message":"boom"}}`, true},
		"Overloaded":   {529, `{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`, true},
		"RateLimited":  {http.StatusTooManyRequests, `{}`, true},
		"BadKey":       {http.StatusUnauthorized, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, false},
		"NotJSON":      {http.StatusOK, `<html>`, false},
		"NoScore":      {http.StatusOK, textReply(`I would rather not score this.`), false},
		"ScoreString":  {http.StatusOK, textReply(`{"score": "high", "reasoning": "x"}`), false},
		"NoReasoning":  {http.StatusOK, textReply(`{"score": 3}`), false},
		"EmptyContent": {http.StatusOK, `{"content":[]}`, false},
	} {
		t.Run(name, func(t *testing.T) {
			c, _, _ := provider(t, tc.status, tc.reply)
			_, err := c.Review(context.Background(), "s", "p")
			var pe *ai.Error
			require.ErrorAs(t, err, &pe)
			require.NotEmpty(t, pe.Message)
			require.NotContains(t, pe.Message, "sk-test")
			require.Equal(t, tc.retryable, pe.Retryable())
		})
	}

	c := ai.New(ai.Config{APIKey: "k", BaseURL: "http://127.0.0.1:1"})
	_, err := c.Review(context.Background(), "s", "p")
	var pe *ai.Error
	require.ErrorAs(t, err, &pe)
	require.True(t, pe.Retryable())
}
