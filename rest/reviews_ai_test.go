package rest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/ai"
	"github.com/podium/podium/jobs"
)

// fakeProvider is a local stand-in for Anthropic's Messages API: it records each request and
// answers with reply.
type fakeProvider struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []providerRequest
	reply    func(n int) (status int, text string)
}

type providerRequest struct {
	Header http.Header
	Body   map[string]any
	Raw    string
}

func newFakeProvider(t *testing.T) *fakeProvider {
	t.Helper()
	p := &fakeProvider{reply: func(n int) (int, string) {
		return http.StatusOK, fmt.Sprintf(`{"score": %d.5, "reasoning": "Review number %d."}`, n, n)
	}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := providerRequest{Header: r.Header.Clone(), Raw: string(raw)}
		_ = json.Unmarshal(raw, &req.Body)
		p.mu.Lock()
		p.requests = append(p.requests, req)
		n, reply := len(p.requests), p.reply
		p.mu.Unlock()
		status, text := reply(n)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_, _ = io.WriteString(w, `{"type":"error","error":{"type":"api_error","message":"`+text+`"}}`)
			return
		}
		out, _ := json.Marshal(map[string]any{"id": "msg", "type": "message", "role": "assistant", "model": "claude-test",
			"content": []any{map[string]any{"type": "text", "text": text}}})
		_, _ = w.Write(out)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *fakeProvider) set(reply func(n int) (int, string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reply = reply
}

func (p *fakeProvider) last() providerRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[len(p.requests)-1]
}

func (p *fakeProvider) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.requests)
}

// useAI points the operations at a fake provider.
func (b *testBundle) useAI(p *fakeProvider) {
	b.res.Ops.AI = ai.New(ai.Config{APIKey: "sk-ant-test-key", BaseURL: p.srv.URL, Model: "claude-test"})
}

// prompt is what the provider was told, system and user message together.
func (r providerRequest) prompt() string {
	var user string
	if msgs, ok := r.Body["messages"].([]any); ok && len(msgs) > 0 {
		user, _ = msgs[0].(map[string]any)["content"].(string)
	}
	system, _ := r.Body["system"].(string)
	return system + "\n" + user
}

func TestAIReview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sc := b.scorecard()
	url := sc.w.base + "/review-rounds/" + sc.round + "/ai-review"
	body := map[string]any{"submissionId": sc.s1}

	// Without a provider: 502 and nothing stored.
	require.Equal(t, false, b.workspace(sc.w)["aiConfigured"])
	r := b.do(http.MethodPost, url, b.acme, body)
	b.requireError(r, http.StatusBadGateway, "review_generation_error")
	require.Zero(t, b.count(`SELECT count(*) FROM ai_review_results`))

	p := newFakeProvider(t)
	b.useAI(p)
	require.Equal(t, true, b.workspace(sc.w)["aiConfigured"])
	res := b.must(http.StatusOK, http.MethodPost, url, b.acme, body).Obj()
	require.Equal(t, "1.5", res["score"].(json.Number).String())
	require.Equal(t, "Review number 1.", res["reasoning"])
	require.Equal(t, "anthropic", res["provider"])
	require.Equal(t, "claude-test", res["model"])
	require.Equal(t, sc.round, res["roundId"])
	require.Equal(t, sc.s1, res["submissionId"])
	for _, k := range []string{"overriddenScore", "overrideReason", "overriddenByUserId", "overriddenByApiKeyId", "overriddenAt"} {
		v, ok := res[k]
		require.True(t, ok, k)
		require.Nil(t, v, k)
	}
	req := p.last()
	require.Equal(t, "sk-ant-test-key", req.Header.Get("X-Api-Key"))
	require.Equal(t, "2023-06-01", req.Header.Get("Anthropic-Version"))
	require.Equal(t, "claude-test", req.Body["model"])
	require.Contains(t, req.prompt(), "Generics in practice")
	require.Contains(t, req.prompt(), "Ada Lovelace", "an open round names the speakers")
	require.Contains(t, req.prompt(), "Quality")
	require.Contains(t, req.prompt(), "from 1 to 5")

	row := resultOf(t, sc.entry(), sc.s1)
	require.Equal(t, res, row["aiResult"])

	// Override: the provider's score stays; the key is recorded.
	override := sc.w.base + "/ai-review-override"
	over := b.must(http.StatusOK, http.MethodPost, override, b.acme,
		map[string]any{"resultId": res["id"], "score": 4.25, "reason": " Stronger than it reads "}).Obj()
	require.Equal(t, res["score"], over["score"])
	require.Equal(t, "4.25", over["overriddenScore"].(json.Number).String())
	require.Equal(t, "Stronger than it reads", over["overrideReason"])
	var keyID string
	require.NoError(t, b.db.System.QueryRow(b.sys(),
		`SELECT id FROM api_keys WHERE organization_id = $1`, b.acmeOrg).Scan(&keyID))
	require.Equal(t, keyID, over["overriddenByApiKeyId"])
	require.Nil(t, over["overriddenByUserId"])
	require.NotNil(t, over["overriddenAt"])
	row = resultOf(t, sc.entry(), sc.s1)
	require.Equal(t, over, row["aiResult"])
	require.Nil(t, row["aiOverriddenByName"], "overridden by a key, not a user")

	elsewhere := b.worldIn("Elsewhere 2")
	b.requireError(b.do(http.MethodPost, elsewhere.base+"/ai-review-override", b.acme,
		map[string]any{"resultId": res["id"], "score": 1, "reason": "x"}), 404, "not_found")
	b.requireError(b.do(http.MethodPost, override, b.acme,
		map[string]any{"resultId": "air_0000000000000000000000000", "score": 1, "reason": "x"}), 404, "not_found")
	b.requireError(b.do(http.MethodPost, override, b.globex,
		map[string]any{"resultId": res["id"], "score": 1, "reason": "x"}), 403, "forbidden")
	b.requireError(b.do(http.MethodPost, override, b.acme, map[string]any{"resultId": res["id"], "score": "high", "reason": "x"}),
		400, "invalid_body")

	// A failing provider changes nothing, whatever the failure.
	for _, reply := range []func(int) (int, string){
		func(int) (int, string) { return http.StatusInternalServerError, "boom" },
		func(int) (int, string) { return http.StatusUnauthorized, "invalid x-api-key" },
		func(int) (int, string) { return http.StatusOK, "I cannot score this proposal." },
	} {
		p.set(reply)
		r := b.do(http.MethodPost, url, b.acme, body)
		b.requireError(r, http.StatusBadGateway, "review_generation_error")
		require.NotContains(t, r.Raw, "sk-ant-test-key")
		require.Equal(t, over, resultOf(t, sc.entry(), sc.s1)["aiResult"])
	}

	// A re-run replaces the result and clears the override.
	p.set(func(n int) (int, string) {
		return http.StatusOK, "Here you go:\n```json\n{\"score\": 2, \"reasoning\": \"Thin.\"}\n```"
	})
	rerun := b.must(http.StatusOK, http.MethodPost, url, b.acme, body).Obj()
	require.Equal(t, res["id"], rerun["id"], "one result per round and submission")
	require.EqualValues(t, jsonNum(2), rerun["score"])
	require.Equal(t, "Thin.", rerun["reasoning"])
	require.Nil(t, rerun["overriddenScore"])
	require.Nil(t, rerun["overrideReason"])
	require.Nil(t, rerun["overriddenByApiKeyId"])
	require.Nil(t, rerun["overriddenAt"])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM ai_review_results`))

	// Not found: a submission of another event, a round elsewhere.
	foreign := b.proposeIn(elsewhere, "Foreign", "d", nil, b.speaker(elsewhere.base, "F", "Oreign", "f@example.test"))
	b.requireError(b.do(http.MethodPost, url, b.acme, map[string]any{"submissionId": foreign}), 404, "not_found")
	b.requireError(b.do(http.MethodPost, sc.w.base+"/review-rounds/rnd_0000000000000000000000000/ai-review", b.acme, body), 404, "not_found")
	b.requireError(b.do(http.MethodPost, url, b.globex, body), 403, "forbidden")
}

func TestAIReviewOfABlindRoundSendsNoIdentity(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	speaker := speakerBody("linus@example.test")
	speaker["firstName"], speaker["lastName"], speaker["company"] = "Linus", "Kernel", "Initech"
	speaker["bio"], speaker["websiteUrl"] = "Linus maintains things at Initech.", "https://linus.example.test"
	linus := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/speakers", b.acme, speaker).Obj(), "id")
	s := b.proposeIn(w, "Scaling Initech's kernel team", "Linus Kernel (linus@example.test, https://linus.example.test) and "+
		"Ada Lovelace tell how they grew INITECH.", []string{w.track1}, linus, w.ada)
	blind := roundBody("Blind", numericCriterion("Quality", 1, 10, 1, true))
	blind["blind"] = true
	round := str(roundOf(b.saveRound(w, blind)), "id")

	p := newFakeProvider(t)
	b.useAI(p)
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round+"/ai-review", b.acme, map[string]any{"submissionId": s})
	sent := strings.ToLower(p.last().Raw)
	for _, leak := range []string{"linus", "kernel", "initech", "ada", "lovelace", "example.test", linus, w.ada} {
		require.NotContains(t, sent, strings.ToLower(leak))
	}
	require.Contains(t, p.last().prompt(), "team", "the proposal itself is sent")
	require.Contains(t, p.last().prompt(), "Go", "tracks are sent")
	require.Contains(t, p.last().prompt(), "blind")
}

func TestScoreRoundWithAIInTheBackground(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	var subs []string
	for i := range 4 {
		subs = append(subs, b.proposeIn(w, fmt.Sprintf("Talk %d", i), "d", nil, w.ada))
	}
	b.must(http.StatusOK, http.MethodPatch, w.base+"/submissions/"+subs[3], b.acme, map[string]any{"status": "withdrawn"})
	round := str(roundOf(b.saveRound(w, roundBody("Main", numericCriterion("Quality", 1, 5, 1, false)))), "id")
	mutation := `mutation($e: ID!, $r: ID!) { scoreRoundWithAi(eventId: $e, roundId: $r) { roundId queued alreadyQueued } }`
	vars := map[string]any{"e": w.event, "r": round}

	require.Equal(t, []string{"review_generation_error"}, b.gql(b.acme, mutation, vars).Codes())

	p := newFakeProvider(t)
	b.useAI(p)
	res := b.gqlOK(b.acme, mutation, vars)["scoreRoundWithAi"].(map[string]any)
	require.Equal(t, map[string]any{"roundId": round, "queued": 3.0, "alreadyQueued": 0.0}, res, "withdrawn proposals are left out")
	// Jobs wait for a worker; asking again queues nothing twice.
	res = b.gqlOK(b.acme, mutation, vars)["scoreRoundWithAi"].(map[string]any)
	require.Equal(t, map[string]any{"roundId": round, "queued": 0.0, "alreadyQueued": 3.0}, res)
	require.Equal(t, 3, b.count(`SELECT count(*) FROM river_job WHERE kind = 'ai_review'`))
	require.Zero(t, p.calls(), "nothing is scored in the request")

	// Over REST, for given submissions.
	r := b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round+"/ai-scoring", b.acme,
		map[string]any{"submissionIds": []any{subs[3]}}).Obj()
	require.Equal(t, map[string]any{"roundId": round, "queued": jsonNum(1), "alreadyQueued": jsonNum(0)}, r)
	b.requireError(b.do(http.MethodPost, w.base+"/review-rounds/"+round+"/ai-scoring", b.acme,
		map[string]any{"submissionIds": []any{"sub_0000000000000000000000000"}}), 404, "not_found")

	// A worker scores them: the second call fails once and is retried.
	p.set(func(n int) (int, string) {
		if n == 2 {
			return http.StatusServiceUnavailable, "overloaded"
		}
		return http.StatusOK, `{"score": 3, "reasoning": "Fine."}`
	})
	b.startWorkers(jobs.Config{Scorer: b.res.Ops, EmailWorkers: 1, RetryPolicy: immediateRetry{}})
	require.Eventually(t, func() bool { return b.count(`SELECT count(*) FROM ai_review_results`) == 4 },
		15*time.Second, 50*time.Millisecond)
	require.Equal(t, 5, p.calls())
	for _, row := range objects(roundIn(t, b.workspace(w), round)["results"]) {
		require.EqualValues(t, jsonNum(3), row["aiResult"].(map[string]any)["score"])
	}
	require.Eventually(t, func() bool {
		return b.count(`SELECT count(*) FROM river_job WHERE kind = 'ai_review' AND state = 'completed'`) == 4
	}, 5*time.Second, 50*time.Millisecond)

	// A provider refusing the key ends the job instead of retrying it.
	p.set(func(int) (int, string) { return http.StatusUnauthorized, "invalid x-api-key" })
	b.gqlOK(b.acme, mutation, vars)
	require.Eventually(t, func() bool {
		return b.count(`SELECT count(*) FROM river_job WHERE kind = 'ai_review' AND state = 'cancelled'`) == 3
	}, 15*time.Second, 50*time.Millisecond)
}

// immediateRetry retries failed jobs at once.
type immediateRetry struct{}

func (immediateRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now() }
