package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/internal/testutil"
)

func get(t *testing.T, c *http.Client, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Get(url)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return resp, b
}

// hello serves Hello, World! over HTTP, and over HTTPS with HTTP/2 and
// HTTP/1.1, and its file byte-exact over each.
func TestHello(t *testing.T) {
	data := make([]byte, 3<<20+77)
	_, err := rand.Read(data)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "data.bin")
	require.NoError(t, os.WriteFile(file, data, 0o644))

	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 2)
	done := make(chan error, 1)
	cfg := config{addr: "127.0.0.1:0", tlsAddr: "127.0.0.1:0", file: file, executors: 2}
	go func() { done <- serve(ctx, cfg, func(scheme, a string) { addrs <- scheme + "://" + a }) }()
	var urls []string // http:// first, then https://
	for len(urls) < 2 {
		select {
		case u := <-addrs:
			urls = append(urls, u)
		case err := <-done:
			t.Fatal(err)
		}
	}
	insecure := func() *tls.Config { return &tls.Config{InsecureSkipVerify: true} } // hello's self-signed certificate
	clients := []struct {
		name, proto string
		c           *http.Client
	}{
		{"http", "HTTP/1.1", &http.Client{Timeout: 10 * time.Second}},
		{"h2", "HTTP/2.0", &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: insecure(), ForceAttemptHTTP2: true}}},
		{"h1", "HTTP/1.1", &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: insecure(),
			TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}}},
	}
	for _, cl := range clients {
		base := urls[0] // http://, ready first
		if cl.name != "http" {
			base = urls[1] // https://
		}
		for i := 0; i < 5; i++ {
			resp, b := get(t, cl.c, base+"/")
			require.Equal(t, "Hello, World!", string(b))
			require.Equal(t, cl.proto, resp.Proto, cl.name)
		}
		_, b := get(t, cl.c, base+"/file")
		require.Equal(t, sha256.Sum256(data), sha256.Sum256(b), cl.name)
		cl.c.CloseIdleConnections()
	}
	cancel()
	require.NoError(t, <-done)
}

// TestMain runs the tests, then again where io_uring is denied (a seccomp
// filter; kernel.io_uring_disabled = 2 when URING_SYSCTL_TESTS=1): the
// example serves the same on the task layer's fallback.
func TestMain(m *testing.M) { testutil.MainDenied(m) }
