// Package mailtest is an in-process SMTP server for tests: it receives what Podium sends, parses
// it, and can be told to refuse for a while, so tests check real deliveries over real SMTP.
package mailtest

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one received message.
type Message struct {
	From string
	To   []string
	// Raw is the message as it arrived.
	Raw    []byte
	Header mail.Header
	// Text, HTML and Calendar are the decoded text/plain, text/html and text/calendar parts;
	// CalendarMethod is the calendar part's method parameter (REQUEST or CANCEL).
	Text, HTML, Calendar, CalendarMethod string
	// Attachments maps attachment file names to their content types.
	Attachments map[string]string
}

// Sink is a running SMTP server.
type Sink struct {
	server *smtp.Server
	ln     net.Listener
	addr   string

	mu       sync.Mutex
	messages []Message
	// failures is how many coming messages to refuse, and with which reply.
	failures    int
	failure     *smtp.SMTPError
	refuseUntil time.Time
	delivered   chan struct{}
	// Username and Password, when set, are required (AUTH PLAIN).
	username, password string
	implicitTLS        bool
	roots              *x509.CertPool
	delay              time.Duration
	discard            bool
	count              atomic.Int64
	// open and maxOpen count connections open now and at most at once.
	open, maxOpen atomic.Int64
}

// Options configure New.
type Options struct {
	// Username and Password require AUTH PLAIN with these credentials.
	Username, Password string
	// TLS starts the server with implicit TLS (smtps); StartTLS offers STARTTLS on a plain
	// connection instead. Both use a fresh self-signed certificate (see ClientTLS).
	TLS, StartTLS bool
	// Delay holds every message this long before accepting it, like a slow server.
	Delay time.Duration
	// Discard counts messages without keeping or parsing them, for benchmarks.
	Discard bool
}

// New starts a sink for t, stopped when t ends.
func New(t testing.TB, opts Options) *Sink {
	t.Helper()
	s := &Sink{delivered: make(chan struct{}, 1), username: opts.Username, password: opts.Password, delay: opts.Delay, discard: opts.Discard}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "sink.test"
	srv.AllowInsecureAuth = true
	srv.MaxMessageBytes = 10 << 20
	srv.MaxRecipients = 50
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	var err error
	if opts.TLS || opts.StartTLS {
		srv.TLSConfig, s.roots = serverTLS(t)
		s.implicitTLS = opts.TLS
	}
	if opts.TLS {
		s.ln, err = tls.Listen("tcp", "127.0.0.1:0", srv.TLSConfig)
	} else {
		s.ln, err = new(net.ListenConfig).Listen(t.Context(), "tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatalf("mailtest: listen: %v", err)
	}
	s.server, s.addr = srv, s.ln.Addr().String()
	go func() { _ = srv.Serve(s.ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// Addr is the sink's host:port.
func (s *Sink) Addr() string { return s.addr }

// URL is an SMTP_URL for the sink.
func (s *Sink) URL() string {
	scheme := "smtp"
	if s.implicitTLS {
		scheme = "smtps"
	}
	auth := ""
	if s.username != "" {
		auth = s.username + ":" + s.password + "@"
	}
	return scheme + "://" + auth + s.addr
}

// ClientTLS is a client configuration trusting the sink's certificate.
func (s *Sink) ClientTLS() *tls.Config {
	return &tls.Config{RootCAs: s.roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// Messages returns what arrived so far.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Wait waits until n messages have arrived or the timeout passes, and returns them.
func (s *Sink) Wait(t testing.TB, n int, timeout time.Duration) []Message {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if m := s.Messages(); len(m) >= n {
			return m
		}
		select {
		case <-s.delivered:
		case <-deadline:
			t.Fatalf("mailtest: %d of %d messages arrived within %s", len(s.Messages()), n, timeout)
		}
	}
}

// FailNext refuses the next n messages with the SMTP reply code (421 or 451 for a temporary
// refusal, 550 or 554 for a permanent one).
func (s *Sink) FailNext(n, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = n
	s.failure = reply(code)
}

// RefuseFor refuses every message with 451 until d has passed.
func (s *Sink) RefuseFor(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseUntil = time.Now().Add(d)
}

func reply(code int) *smtp.SMTPError {
	class := code / 100
	return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{class, 0, 0},
		Message: map[int]string{4: "try again later", 5: "no such user here"}[class]}
}

// admit reports why a message is refused now, or nil.
func (s *Sink) admit() *smtp.SMTPError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Now().Before(s.refuseUntil) {
		return reply(451)
	}
	if s.failures > 0 {
		s.failures--
		return s.failure
	}
	return nil
}

// Count is the number of messages accepted, kept or discarded.
func (s *Sink) Count() int64 { return s.count.Load() }

// MaxConnections reports the most connections that were open at once.
func (s *Sink) MaxConnections() int64 { return s.maxOpen.Load() }

func (s *Sink) connected() {
	n := s.open.Add(1)
	for {
		m := s.maxOpen.Load()
		if n <= m || s.maxOpen.CompareAndSwap(m, n) {
			return
		}
	}
}

func (s *Sink) add(m Message) {
	s.count.Add(1)
	s.mu.Lock()
	s.messages = append(s.messages, m)
	s.mu.Unlock()
	select {
	case s.delivered <- struct{}{}:
	default:
	}
}

type backend struct{ s *Sink }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) {
	b.s.connected()
	return &session{s: b.s}, nil
}

type session struct {
	s      *Sink
	authed bool
	from   string
	to     []string
}

func (x *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (x *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != x.s.username || pass != x.s.password {
			return errors.New("invalid credentials")
		}
		x.authed = true
		return nil
	}), nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if x.s.username != "" && !x.authed {
		return smtp.ErrAuthRequired
	}
	if err := x.s.admit(); err != nil {
		return err
	}
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	if x.s.discard {
		_, err := io.Copy(io.Discard, r)
		x.s.count.Add(1)
		return err
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := parse(raw)
	if err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "unparsable: " + err.Error()}
	}
	m.From, m.To = x.from, x.to
	time.Sleep(x.s.delay)
	x.s.add(m)
	return nil
}

func (x *session) Reset() { x.from, x.to = "", nil }

func (x *session) Logout() error {
	x.s.open.Add(-1)
	return nil
}

// parse reads a message and its MIME parts.
func parse(raw []byte) (Message, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	m := Message{Raw: raw, Header: msg.Header, Attachments: map[string]string{}}
	err = walk(&m, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"),
		msg.Header.Get("Content-Disposition"), msg.Body)
	return m, err
}

func walk(m *Message, contentType, encoding, disposition string, body io.Reader) error {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		mediaType, params = "text/plain", map[string]string{}
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := walk(m, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"),
				p.Header.Get("Content-Disposition"), p); err != nil {
				return err
			}
		}
	}
	content, err := decode(encoding, body)
	if err != nil {
		return err
	}
	if d, dp, err := mime.ParseMediaType(disposition); err == nil && d == "attachment" {
		m.Attachments[dp["filename"]] = contentType
		if mediaType == "text/calendar" && m.Calendar == "" {
			m.Calendar, m.CalendarMethod = content, params["method"]
		}
		return nil
	}
	switch mediaType {
	case "text/plain":
		m.Text = content
	case "text/html":
		m.HTML = content
	case "text/calendar":
		m.Calendar, m.CalendarMethod = content, params["method"]
	}
	return nil
}

func decode(encoding string, r io.Reader) (string, error) {
	var rd io.Reader = r
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		rd = quotedprintable.NewReader(r)
	case "base64":
		rd = base64.NewDecoder(base64.StdEncoding, newlineStripper{r})
	}
	b, err := io.ReadAll(rd)
	// Text travels with CRLF line ends; tests compare with what was queued.
	return strings.ReplaceAll(string(b), "\r\n", "\n"), err
}

// newlineStripper drops CR and LF, which base64 bodies are wrapped with.
type newlineStripper struct{ r io.Reader }

func (n newlineStripper) Read(p []byte) (int, error) {
	for {
		c, err := n.r.Read(p)
		k := 0
		for _, b := range p[:c] {
			if b != '\r' && b != '\n' {
				p[k] = b
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

// serverTLS makes a self-signed certificate for 127.0.0.1 and a pool trusting it.
func serverTLS(t testing.TB) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "sink.test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, pool
}
