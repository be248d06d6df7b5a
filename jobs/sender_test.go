package jobs_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
)

// TestRelayClosingAfterAcceptance sends through a relay that hangs up as soon as it has accepted a
// message, as a relay limiting messages per connection may. An accepted message counts as sent —
// nothing after the acceptance can fail it and have it sent again — and the next message goes
// out on a fresh connection instead of failing on the closed one.
func TestRelayClosingAfterAcceptance(t *testing.T) {
	t.Parallel()
	relay := newOneShotRelay(t)
	sender, err := jobs.NewSMTPSender("smtp://"+relay.addr, "podium@example.test", jobs.SMTPOptions{Connections: 1})
	require.NoError(t, err)
	defer sender.Close()

	for i := range 3 {
		id, err := sender.Send(context.Background(), jobs.Message{ID: fmt.Sprintf("eml_%d", i),
			To: "ada@example.test", Subject: "Hello", Text: "Hi"})
		require.NoError(t, err, "message %d", i)
		require.Equal(t, fmt.Sprintf("<eml_%d@example.test>", i), id)
	}
	require.Equal(t, []int{1, 1, 1}, relay.perConnection())
}

// oneShotRelay is a scripted SMTP server that accepts one message per connection and then closes
// it without waiting for another command.
type oneShotRelay struct {
	addr     string
	mu       sync.Mutex
	accepted []int // messages accepted, per connection
}

func newOneShotRelay(t *testing.T) *oneShotRelay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	r := &oneShotRelay{addr: ln.Addr().String()}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			r.mu.Lock()
			r.accepted = append(r.accepted, 0)
			n := len(r.accepted) - 1
			r.mu.Unlock()
			go r.serve(conn, n)
		}
	}()
	return r
}

func (r *oneShotRelay) serve(conn net.Conn, n int) {
	defer conn.Close()
	in := bufio.NewReader(conn)
	say := func(line string) { _, _ = conn.Write([]byte(line + "\r\n")) }
	say("220 relay.test ESMTP")
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		switch verb := strings.ToUpper(strings.Fields(line + " x")[0]); verb {
		case "EHLO", "HELO":
			say("250 relay.test")
		case "MAIL", "RCPT", "NOOP", "RSET":
			say("250 OK")
		case "DATA":
			say("354 go ahead")
			for {
				l, err := in.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
			}
			r.mu.Lock()
			r.accepted[n]++
			r.mu.Unlock()
			say("250 2.0.0 accepted")
			return
		default:
			say("502 not implemented")
		}
	}
}

func (r *oneShotRelay) perConnection() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.accepted...)
}
