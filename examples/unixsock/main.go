// Command unixsock serves HTTP on a Unix socket through the task runtime
// (net/http, unchanged, on goio.On(rt).Listen("unix", path)), as daemons
// do for local APIs, and with -get fetches a path from such a server
// through goio.On(rt).Dial(ctx, "unix", path).
//
//	unixsock [-socket /tmp/unixsock.sock] [-for 10s]
//	unixsock -socket /tmp/unixsock.sock -get /hello
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/pure-uring/uring/task"
	"github.com/pure-uring/uring/task/goio"
)

func main() {
	socket := flag.String("socket", "/tmp/unixsock.sock", "the Unix socket's path")
	get := flag.String("get", "", "fetch this path from the server on -socket and print it, instead of serving")
	d := flag.Duration("for", 0, "stop serving after this long (0: never)")
	flag.Parse()
	ctx := context.Background()
	if *d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *d)
		defer cancel()
	}
	var err error
	if *get != "" {
		var body string
		if body, err = fetch(ctx, *socket, *get); err == nil {
			fmt.Println(body)
		}
	} else {
		err = serve(ctx, *socket, func(p string) { fmt.Println("unixsock: serving HTTP on unix:" + p) })
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "unixsock:", err)
		os.Exit(1)
	}
}

// serve answers HTTP on the Unix socket path until ctx is done; the path
// is removed when it stops. ready gets the path once it listens.
func serve(ctx context.Context, path string, ready func(string)) error {
	rt, err := task.NewRuntime(1)
	if err != nil {
		return err
	}
	defer rt.Close()
	ln, err := goio.On(rt).Listen("unix", path)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		// A Unix socket's peer has no address: RemoteAddr is "@".
		fmt.Fprintf(w, "hello over %s from %s", r.Context().Value(http.LocalAddrContextKey), r.RemoteAddr)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ready(ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// fetch GETs urlPath from the HTTP server on the Unix socket path, dialing
// it through the runtime.
func fetch(ctx context.Context, path, urlPath string) (string, error) {
	rt, err := task.NewRuntime(1)
	if err != nil {
		return "", err
	}
	defer rt.Close()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return goio.On(rt).Dial(ctx, "unix", path)
	}}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://unix"+urlPath, nil)
	if err != nil {
		return "", err
	}
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", resp.Status, b)
	}
	return string(b), err
}
