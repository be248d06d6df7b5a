// Package ai is Podium's AI provider: a client of Anthropic's Messages API over plain HTTP. It sends
// a prompt and reads back a review's score with its reasoning, or an agenda proposal through a
// tool call (agenda.go); what goes into the prompt (and what a blind round leaves out) is the
// operation layer's business.
package ai

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"time"
)

// Provider is the provider name stored on results.
const Provider = "anthropic"

// DefaultBaseURL is Anthropic's API.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultModel is the model asked when AI_MODEL is unset.
const DefaultModel = "claude-sonnet-4-5"

// apiVersion is the Messages API version Podium speaks.
const apiVersion = "2023-06-01"

// Config configures New.
type Config struct {
	// APIKey is sent as x-api-key. Without it there is no client.
	APIKey string
	// BaseURL defaults to DefaultBaseURL; requests go to BaseURL + /v1/messages.
	BaseURL string
	// Model defaults to DefaultModel.
	Model string
	// HTTP defaults to a client with a two-minute timeout.
	HTTP *http.Client
}

// Client asks the provider for reviews.
type Client struct {
	key, url, model string
	http            *http.Client
}

// New returns a client, or nil when cfg has no API key: AI review is then not configured.
func New(cfg Config) *Client {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 2 * time.Minute}
	}
	return &Client{key: strings.TrimSpace(cfg.APIKey), url: strings.TrimRight(cfg.BaseURL, "/") + "/v1/messages",
		model: cfg.Model, http: cfg.HTTP}
}

// Model is the model the client asks.
func (c *Client) Model() string { return c.model }

// ErrNotConfigured is returned where a client is needed and none is configured.
var ErrNotConfigured = errors.New("AI review is not configured: set ANTHROPIC_API_KEY")

// Review is the provider's answer.
type Review struct {
	Score     float64
	Reasoning string
}

// Error is a failed review: the provider could not be reached, refused, or answered with
// something that is not a review. Message is safe to show; Detail belongs in the log.
type Error struct {
	Message string
	Detail  string
	// Status is the provider's HTTP status, 0 when there was no response.
	Status int
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Message
	}
	return e.Message + ": " + e.Detail
}

// Retryable says whether asking again later may succeed: no response, rate limits, overload and
// server errors. A reply that is not a review is not retried either, since a model asked the same
// thing tends to answer the same way.
func (e *Error) Retryable() bool {
	return e.Status == 0 || e.Status == http.StatusTooManyRequests || e.Status == 529 || e.Status >= 500
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type request struct {
	Model       string    `json:"model"`
	MaxTokens   int       `json:"max_tokens"`
	Temperature float64   `json:"temperature"`
	System      string    `json:"system"`
	Messages    []message `json:"messages"`
}

type response struct {
	Content []struct {
		Type  string          `json:"type"`
		Name  string          `json:"name"`
		Text  string          `json:"text"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// Review sends system and prompt to the provider and reads its review. The reply's text is a JSON
// object {"score": <number>, "reasoning": "<text>"}; prose around it or a code fence is tolerated
// (docs/rest-api.md §5).
func (c *Client) Review(ctx context.Context, system, prompt string) (Review, error) {
	body, err := json.Marshal(request{Model: c.model, MaxTokens: 1024, Temperature: 0.1, System: system,
		Messages: []message{{Role: "user", Content: prompt}}})
	if err != nil {
		return Review{}, err
	}
	raw, status, err := c.post(ctx, body)
	if err != nil {
		return Review{}, err
	}
	var out response
	if err := json.Unmarshal(raw, &out); err != nil {
		return Review{}, &Error{Message: "The AI provider's answer is not a Messages API response", Detail: err.Error(), Status: status}
	}
	var text strings.Builder
	for _, block := range out.Content {
		switch block.Type {
		case "text":
			text.WriteString(block.Text)
		case "tool_use":
			if r, err := parseReview(block.Input); err == nil {
				return r, nil
			}
		}
	}
	r, err := parseText(text.String())
	if err != nil {
		return Review{}, &Error{Message: "The AI provider did not answer with a score", Detail: err.Error(), Status: status}
	}
	return r, nil
}

// parseText finds the review object in a reply's text: the whole text, the inside of a code
// fence, or the outermost braces.
func parseText(text string) (Review, error) {
	text = strings.TrimSpace(text)
	candidates := []string{text}
	if i := strings.Index(text, "```"); i >= 0 {
		rest := text[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			candidates = append(candidates, rest[:j])
		}
	}
	if i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}'); i >= 0 && j > i {
		candidates = append(candidates, text[i:j+1])
	}
	err := errors.New("no JSON object with a score and reasoning in the reply")
	for _, c := range candidates {
		var r Review
		if r, err = parseReview([]byte(strings.TrimSpace(c))); err == nil {
			return r, nil
		}
	}
	return Review{}, err
}

// parseReview reads {"score": <finite number>, "reasoning": "<text>"}.
func parseReview(raw []byte) (Review, error) {
	var v struct {
		Score     *float64 `json:"score"`
		Reasoning *string  `json:"reasoning"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return Review{}, err
	}
	if v.Score == nil || math.IsNaN(*v.Score) || math.IsInf(*v.Score, 0) {
		return Review{}, errors.New("the reply has no numeric score")
	}
	if v.Reasoning == nil {
		return Review{}, errors.New("the reply has no reasoning")
	}
	return Review{Score: *v.Score, Reasoning: strings.TrimSpace(*v.Reasoning)}, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
