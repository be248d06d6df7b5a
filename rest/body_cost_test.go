package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/rest"
)

// TestRESTBodyCost sends every write operation the REST bodies that cost most to decode, each as
// large as the 1 MiB body limit allows — a million unknown keys, nesting past the JSON decoder's
// depth limit, a megabyte string in a known field, a known list grown to the limit — and holds
// each answer to a second of the process's CPU and a response under 64 KiB. The test is not
// parallel, so that the process's CPU time is this test's alone.
func TestRESTBodyCost(t *testing.T) {
	b := setup(t)
	f := b.fixture()
	ids := f.replacer()
	const limit = rest.MaxBodyBytes

	fill := func(head, unit, tail string) []byte {
		n := (limit - len(head) - len(tail)) / len(unit)
		return []byte(head + strings.Repeat(unit, n) + tail)
	}
	generic := map[string][]byte{
		"UnknownKeys": func() []byte {
			var s strings.Builder
			s.WriteString("{")
			for i := 0; s.Len() < limit-30; i++ {
				s.WriteString(`"k` + strconv.Itoa(i) + `":0,`)
			}
			s.WriteString(`"end":0}`)
			return []byte(s.String())
		}(),
		"DeepNesting": fill(`{"x":`, "[", "]}"),
		"Numbers":     fill(`{"x":[`, "1e308,", "0]}"),
	}
	var worst time.Duration
	var worstName string
	for _, op := range b.operations(t) {
		if op.body == nil || op.public {
			continue
		}
		valid := map[string]any{}
		if v, ok := f.bodies[op.id]; ok {
			valid = v
		}
		shapes := map[string][]byte{}
		for name, body := range generic {
			// decodeBody refuses or drops these the same way whatever the operation: once.
			shapes[name] = body
		}
		generic = nil
		for key, v := range valid {
			switch v := v.(type) {
			case string:
				grown := clone(valid)
				raw, _ := json.Marshal(grown)
				grown[key] = strings.Repeat("x", limit-len(raw)-len(v)-16)
				shapes["LongString."+key], _ = json.Marshal(grown)
			case []any:
				if len(v) == 0 {
					continue
				}
				item, _ := json.Marshal(v[0])
				grown := clone(valid)
				grown[key] = []any{}
				raw, _ := json.Marshal(grown)
				n := (limit - len(raw)) / (len(item) + 1)
				list := make([]any, n)
				for i := range list {
					list[i] = v[0]
				}
				grown[key] = list
				shapes["LongList."+key], _ = json.Marshal(grown)
			}
		}
		for name, body := range shapes {
			body = []byte(ids.Replace(string(body)))
			if len(body) > limit {
				continue // a placeholder grew into a longer id
			}
			req := httptest.NewRequest(op.method, f.path(op.path), bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+b.acme)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			cpu, start := cpuTime(), time.Now()
			b.handler.ServeHTTP(rec, req)
			cpu, wall := cpuTime()-cpu, time.Since(start)
			if cpu > worst {
				worst, worstName = cpu, op.id+" "+name
			}
			if cpu > 200*time.Millisecond {
				t.Logf("%-28s %-22s request %7d B  response %5d B  status %d  wall %8v  cpu %8v", op.id, name,
					len(body), rec.Body.Len(), rec.Code, wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
			}
			require.Less(t, cpu, time.Second, "%s %s: %s", op.id, name, head(rec.Body.String()))
			require.Less(t, rec.Body.Len(), 64<<10, "%s %s: %s", op.id, name, head(rec.Body.String()))
			// 502 is the contract's answer when the AI provider is not configured.
			require.NotEqual(t, 500, rec.Code, "%s %s: %s", op.id, name, head(rec.Body.String()))
		}
	}
	t.Logf("costliest body: %s, %v of CPU", worstName, worst.Round(time.Millisecond))
}
