//go:build linux

package goio

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/task"
)

// Real clients against unchanged net/http code, served on net.Listen and
// on the runtime's listener side by side: every scenario must end the
// same way on both (RELIABILITY.md, "Real clients").

// pattern writes n reproducible bytes to w, 64 KiB at a time.
func pattern(w io.Writer, n int64) error {
	r := rand.New(rand.NewPCG(uint64(n), 9))
	block := make([]byte, 64<<10)
	for n > 0 {
		for i := 0; i < len(block); i += 8 {
			v := r.Uint64()
			for j := 0; j < 8; j++ {
				block[i+j] = byte(v >> (8 * j))
			}
		}
		m := min(n, int64(len(block)))
		if _, err := w.Write(block[:m]); err != nil {
			return err
		}
		n -= m
	}
	return nil
}

func patternSum(n int64) string {
	h := sha256.New()
	_ = pattern(h, n)
	return hex.EncodeToString(h.Sum(nil))
}

// testServer is net/http on one listener, with its connection states
// counted and handler write errors reported.
type testServer struct {
	name    string
	addr    string
	srv     *http.Server
	opened  atomic.Int64
	closed  atomic.Int64
	werrs   chan error
	stopped chan error
}

func startServers(t *testing.T, rt *task.Runtime, tune func(*http.Server)) []*testServer {
	t.Helper()
	var out []*testServer
	for _, l := range []struct {
		name   string
		listen listenFunc
	}{{"net.Listen", netListen}, {"runtime", rtListen(rt)}} {
		ln, err := l.listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ts := &testServer{name: l.name, addr: ln.Addr().String(), werrs: make(chan error, 16), stopped: make(chan error, 1)}
		mux := http.NewServeMux()
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
		mux.HandleFunc("/upload", func(w http.ResponseWriter, r *http.Request) {
			h := sha256.New()
			n, err := io.Copy(h, r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			fmt.Fprintf(w, "%d %s", n, hex.EncodeToString(h.Sum(nil)))
		})
		mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
			n, _ := strconv.ParseInt(r.URL.Query().Get("n"), 10, 64)
			w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
			if err := pattern(w, n); err != nil {
				select {
				case ts.werrs <- err:
				default:
				}
			}
		})
		ts.srv = &http.Server{Handler: mux, ErrorLog: quietLog(), ConnState: func(c net.Conn, s http.ConnState) {
			switch s {
			case http.StateNew:
				ts.opened.Add(1)
			case http.StateClosed, http.StateHijacked:
				ts.closed.Add(1)
			}
		}}
		if tune != nil {
			tune(ts.srv)
		}
		go func() { ts.stopped <- ts.srv.Serve(ln) }()
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, ts.srv.Shutdown(ctx), ts.name)
			require.ErrorIs(t, <-ts.stopped, http.ErrServerClosed)
		})
		out = append(out, ts)
	}
	return out
}

// waitClosed waits (bounded) until the server has closed every connection
// it opened.
func (ts *testServer) waitClosed(t *testing.T, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for ts.closed.Load() < ts.opened.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("%s, %s: %d of %d connections still open after 20 s", ts.name, what, ts.opened.Load()-ts.closed.Load(), ts.opened.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hideLen hides a reader's length, so the client sends it chunked.
type hideLen struct{ io.Reader }

// 10 MB uploads (Content-Length, chunked, Expect: 100-continue) and a 200
// MB download arrive byte-exact on both servers.
func TestRealClientUploadsDownloads(t *testing.T) {
	rt := newRuntime(t, 2)
	const up = 10 << 20
	down := int64(200 << 20)
	if testing.Short() {
		down = 32 << 20
	}
	upSum := patternSum(up)
	downSum := patternSum(down)
	for _, ts := range startServers(t, rt, nil) {
		tr := &http.Transport{ExpectContinueTimeout: 10 * time.Second}
		c := &http.Client{Transport: tr, Timeout: 60 * time.Second}
		for _, kind := range []string{"content-length", "chunked", "100-continue"} {
			pr, pw := io.Pipe()
			go func() { pw.CloseWithError(pattern(pw, up)) }()
			var body io.Reader = pr
			req, err := http.NewRequest("POST", "http://"+ts.addr+"/upload", nil)
			require.NoError(t, err)
			switch kind {
			case "content-length", "100-continue":
				req.ContentLength = up
			default:
				body = hideLen{pr}
			}
			req.Body = io.NopCloser(body)
			if kind == "100-continue" {
				req.Header.Set("Expect", "100-continue")
			}
			resp, err := c.Do(req)
			require.NoError(t, err, "%s %s", ts.name, kind)
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			require.Equal(t, fmt.Sprintf("%d %s", up, upSum), string(b), "%s %s", ts.name, kind)
			if kind == "chunked" {
				require.Equal(t, []string(nil), resp.TransferEncoding)
			}
		}
		resp, err := c.Get(fmt.Sprintf("http://%s/download?n=%d", ts.addr, down))
		require.NoError(t, err)
		h := sha256.New()
		n, err := io.Copy(h, resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, down, n)
		require.Equal(t, downSum, hex.EncodeToString(h.Sum(nil)), ts.name)
		tr.CloseIdleConnections()
	}
}

// rawExchange dials addr, runs fn on the connection and returns what the
// server sent until it closed (or 10 s passed).
func rawExchange(t *testing.T, addr string, fn func(c *net.TCPConn)) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	fn(c.(*net.TCPConn))
	if c.SetReadDeadline(time.Now().Add(10*time.Second)) != nil {
		return "" // fn closed it
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

func statusLine(resp string) string {
	line, _, _ := strings.Cut(resp, "\r\n")
	return line
}

// Slow clients: a request head dribbled a byte at a time is served; one
// slower than ReadHeaderTimeout is dropped, as net/http drops it; a slow
// body is read whole; a slow reader gets every byte.
func TestRealClientSlow(t *testing.T) {
	rt := newRuntime(t, 2)
	servers := startServers(t, rt, nil)
	strict := startServers(t, rt, func(s *http.Server) { s.ReadHeaderTimeout = 400 * time.Millisecond })
	var outcomes []string
	for i, ts := range servers {
		head := "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
		resp := rawExchange(t, ts.addr, func(c *net.TCPConn) {
			for i := range head {
				_, err := c.Write([]byte{head[i]})
				require.NoError(t, err)
				time.Sleep(2 * time.Millisecond)
			}
		})
		require.Equal(t, "HTTP/1.1 200 OK", statusLine(resp), ts.name)
		require.True(t, strings.HasSuffix(resp, "hello"))

		// A byte per 100 ms: past ReadHeaderTimeout before the head ends.
		slow := rawExchange(t, strict[i].addr, func(c *net.TCPConn) {
			for i := 0; i < 8; i++ {
				if _, err := c.Write([]byte{head[i]}); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
		outcomes = append(outcomes, statusLine(slow))

		// A slow body.
		body := strings.Repeat("b", 2000)
		resp = rawExchange(t, ts.addr, func(c *net.TCPConn) {
			_, err := fmt.Fprintf(c, "POST /upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n", len(body))
			require.NoError(t, err)
			for i := 0; i < len(body); i += 200 {
				_, err := c.Write([]byte(body[i : i+200]))
				require.NoError(t, err)
				time.Sleep(10 * time.Millisecond)
			}
		})
		sum := sha256.Sum256([]byte(body))
		require.True(t, strings.HasSuffix(resp, fmt.Sprintf("%d %s", len(body), hex.EncodeToString(sum[:]))), ts.name)

		// A slow reader of 8 MiB (1 MiB with -short: the kernel matrix
		// runs it under emulation).
		n := 8 << 20
		if testing.Short() {
			n = 1 << 20
		}
		resp = rawExchange(t, ts.addr, func(c *net.TCPConn) {
			require.NoError(t, c.SetReadBuffer(16<<10))
			_, err := fmt.Fprintf(c, "GET /download?n=%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", n)
			require.NoError(t, err)
			br := bufio.NewReader(c)
			r, err := http.ReadResponse(br, nil)
			require.NoError(t, err)
			h := sha256.New()
			buf := make([]byte, 256<<10)
			total := 0
			for {
				m, err := r.Body.Read(buf)
				h.Write(buf[:m])
				total += m
				if err != nil {
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
			require.Equal(t, n, total, ts.name)
			require.Equal(t, patternSum(int64(n)), hex.EncodeToString(h.Sum(nil)), ts.name)
		})
		ts.waitClosed(t, "slow clients")
	}
	require.Equal(t, outcomes[0], outcomes[1], "a head slower than ReadHeaderTimeout: net's answer vs the runtime's")
}

// Disconnects mid-request and mid-response, by FIN and by RST, and
// half-closed requests: the server closes each connection (its handler's
// write fails), keeps serving, and answers a half-closed request as net's
// does.
func TestRealClientDisconnects(t *testing.T) {
	rt := newRuntime(t, 2)
	servers := startServers(t, rt, nil)
	var halfClosed []string
	for _, ts := range servers {
		for _, rst := range []bool{false, true} {
			// Mid-request: half a head, then gone.
			rawExchange(t, ts.addr, func(c *net.TCPConn) {
				_, err := c.Write([]byte("GET / HTTP/1.1\r\nHo"))
				require.NoError(t, err)
				time.Sleep(20 * time.Millisecond)
				if rst {
					require.NoError(t, c.SetLinger(0))
				}
				c.Close()
			})
			// Mid-response: read a little of 64 MiB, then gone.
			rawExchange(t, ts.addr, func(c *net.TCPConn) {
				_, err := fmt.Fprintf(c, "GET /download?n=%d HTTP/1.1\r\nHost: x\r\n\r\n", 64<<20)
				require.NoError(t, err)
				_, err = io.ReadFull(c, make([]byte, 100<<10))
				require.NoError(t, err)
				if rst {
					require.NoError(t, c.SetLinger(0))
				}
				c.Close()
			})
			select {
			case err := <-ts.werrs:
				require.Error(t, err)
			case <-time.After(time.Minute): // a hang guard
				t.Fatalf("%s: the handler's writes to a gone client did not fail", ts.name)
			}
		}
		// Half-close: the whole request, then FIN.
		resp := rawExchange(t, ts.addr, func(c *net.TCPConn) {
			_, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			require.NoError(t, err)
			require.NoError(t, c.CloseWrite())
		})
		halfClosed = append(halfClosed, statusLine(resp)+" "+resp[strings.LastIndex(resp, "\n")+1:])
		ts.waitClosed(t, "disconnects")
		body, _ := getBody(t, &http.Client{Timeout: 10 * time.Second}, "http://"+ts.addr+"/")
		require.Equal(t, "hello", body, "%s keeps serving", ts.name)
	}
	require.Equal(t, halfClosed[0], halfClosed[1], "a half-closed request: net's answer vs the runtime's")
}

// 500 idle connections, half of them half-open (a partial head, then
// FIN): the server keeps serving while they wait, and closes every one
// of them at its timeouts, as net's does.
func TestRealClientIdleHalfOpen(t *testing.T) {
	rt := newRuntime(t, 2)
	conns := 500
	if testing.Short() {
		conns = 100
	}
	servers := startServers(t, rt, func(s *http.Server) {
		s.ReadHeaderTimeout = time.Second
		s.IdleTimeout = time.Second
	})
	for _, ts := range servers {
		var cs []*net.TCPConn
		for i := 0; i < conns; i++ {
			c, err := net.Dial("tcp", ts.addr)
			require.NoError(t, err)
			tc := c.(*net.TCPConn)
			cs = append(cs, tc)
			if i%2 == 1 {
				_, err = tc.Write([]byte("GET / HTTP/1.1\r\nHost"))
				require.NoError(t, err)
				require.NoError(t, tc.CloseWrite())
			}
		}
		body, _ := getBody(t, &http.Client{Timeout: 10 * time.Second}, "http://"+ts.addr+"/")
		require.Equal(t, "hello", body, "%s serves while %d connections idle", ts.name, conns)
		for _, c := range cs {
			require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Second)))
			_, err := io.ReadAll(c) // the server's close ends it
			require.NoError(t, err, ts.name)
			c.Close()
		}
		ts.waitClosed(t, "idle half-open")
		require.GreaterOrEqual(t, ts.opened.Load(), int64(conns))
	}
}
