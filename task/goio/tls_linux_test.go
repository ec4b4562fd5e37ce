//go:build linux

package goio

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/task"
)

// selfSigned makes a certificate for localhost and 127.0.0.1 and the pool
// that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "uring test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// tlsServer serves h with ServeTLS (HTTP/1.1 and HTTP/2 through ALPN) on
// ln until the end of the test.
func tlsServer(t *testing.T, ln net.Listener, cert tls.Certificate, h http.Handler) {
	t.Helper()
	srv := &http.Server{Handler: h, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, ErrorLog: quietLog()}
	done := make(chan error, 1)
	go func() { done <- srv.ServeTLS(ln, "", "") }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
		require.ErrorIs(t, <-done, http.ErrServerClosed)
	})
}

// protoHandler answers the protocol the request came in with; /data
// serves a File with http.ServeContent.
func protoHandler(rt *task.Runtime, dataPath string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) })
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		f, err := On(rt).OpenFile(dataPath, os.O_RDONLY, 0)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, "data", time.Time{}, f)
	})
	mux.HandleFunc("/upload", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		if _, err := io.Copy(h, r.Body); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		io.WriteString(w, hex.EncodeToString(h.Sum(nil)))
	})
	return mux
}

func getBody(t *testing.T, c *http.Client, url string) (string, *http.Response) {
	t.Helper()
	resp, err := c.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, string(b))
	return string(b), resp
}

// ServeTLS on the runtime's listener speaks HTTP/1.1 and HTTP/2 (ALPN) to
// Go's clients, also when they dial through the runtime, and serves a
// File byte-exact over both; uploads arrive whole over both.
func TestServeTLSHTTP1AndHTTP2(t *testing.T) {
	rt := newRuntime(t, 2)
	cert, pool := selfSigned(t)
	data := randomData(5<<20+17, 7)
	want := sha256.Sum256(data)
	dataPath := writeTemp(t, data)
	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	tlsServer(t, ln, cert, protoHandler(rt, dataPath))
	base := "https://" + ln.Addr().String()

	clients := []struct {
		name, proto string
		tr          *http.Transport
	}{
		{"h2", "HTTP/2.0", &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}},
		{"h1", "HTTP/1.1", &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}},
		{"h2-runtime-dial", "HTTP/2.0", &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true, DialContext: On(rt).Dial}},
		{"h1-runtime-dial", "HTTP/1.1", &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DialContext: On(rt).Dial,
			TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}},
		{"h2-runtime-dialtls", "HTTP/2.0", &http.Transport{ForceAttemptHTTP2: true,
			DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := On(rt).Dial(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				tc := tls.Client(c, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{"h2", "http/1.1"}})
				if err := tc.HandshakeContext(ctx); err != nil {
					c.Close()
					return nil, err
				}
				return tc, nil
			}}},
	}
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			defer cl.tr.CloseIdleConnections()
			c := &http.Client{Transport: cl.tr, Timeout: 30 * time.Second}
			for i := 0; i < 3; i++ {
				body, resp := getBody(t, c, base+"/")
				require.Equal(t, cl.proto, body)
				require.Equal(t, cl.proto, resp.Proto)
			}
			body, _ := getBody(t, c, base+"/data")
			require.Equal(t, want, sha256.Sum256([]byte(body)))
			resp, err := c.Post(base+"/upload", "application/octet-stream", strings.NewReader(string(data)))
			require.NoError(t, err)
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			require.Equal(t, hex.EncodeToString(want[:]), string(b))
		})
	}
}

// A crypto/tls client over Env.Dial talks to a TLS server on net's
// listener and on the runtime's.
func TestTLSClientOverRuntimeDial(t *testing.T) {
	rt := newRuntime(t, 1)
	cert, pool := selfSigned(t)
	for _, listen := range []listenFunc{netListen, rtListen(rt)} {
		ln, err := listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		tlsServer(t, ln, cert, protoHandler(rt, ""))
		c, err := On(rt).Dial(context.Background(), "tcp", ln.Addr().String())
		require.NoError(t, err)
		tc := tls.Client(c, &tls.Config{RootCAs: pool, ServerName: "localhost", NextProtos: []string{"http/1.1"}})
		require.NoError(t, tc.Handshake())
		require.Equal(t, "http/1.1", tc.ConnectionState().NegotiatedProtocol)
		_, err = fmt.Fprintf(tc, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(tc), nil)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, "HTTP/1.1", string(b))
		require.NoError(t, tc.Close())
	}
}

// curl, a client of its own (OpenSSL, nghttp2), gets HTTP/2 and HTTP/1.1
// from ServeTLS on the runtime's listener, and the File byte-exact.
func TestServeTLSCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed (apt-get install curl): the curl client checks need it")
	}
	rt := newRuntime(t, 2)
	cert, _ := selfSigned(t)
	data := randomData(3<<20+5, 8)
	dataPath := writeTemp(t, data)
	ln, err := On(rt).Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	tlsServer(t, ln, cert, protoHandler(rt, dataPath))
	base := "https://" + ln.Addr().String()
	out := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		b, err := exec.CommandContext(ctx, curl, append([]string{"-sS", "-k", "--fail"}, args...)...).Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("curl %v: %v: %s", args, err, ee.Stderr)
		}
		require.NoError(t, err)
		return string(b)
	}
	if !strings.Contains(out("--version"), "HTTP2") {
		t.Skip("this curl has no HTTP/2")
	}
	require.Equal(t, "HTTP/2.0\n2", out("--http2", "-w", "\n%{http_version}", base+"/"))
	require.Equal(t, "HTTP/1.1\n1.1", out("--http1.1", "-w", "\n%{http_version}", base+"/"))
	for _, v := range []string{"--http2", "--http1.1"} {
		got := out(v, base+"/data")
		require.Equal(t, sha256.Sum256(data), sha256.Sum256([]byte(got)), v)
	}
}

// quietLog drops net/http's log lines (TLS handshake errors of clients
// that hang up on purpose).
func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }
