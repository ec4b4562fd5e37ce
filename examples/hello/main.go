//go:build linux

// Command hello serves "Hello, World!" over HTTP with net/http, unchanged,
// on the task runtime's net.Listener (accept, reads and writes through
// io_uring).
//
//	hello [-addr 127.0.0.1:8080] [-executors N] [-for 10s]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/pure-uring/uring/task"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	n := flag.Int("executors", 0, "executors (0: one per CPU)")
	d := flag.Duration("for", 0, "stop after this long (0: never)")
	flag.Parse()
	ctx := context.Background()
	if *d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *d)
		defer cancel()
	}
	if err := serve(ctx, *addr, *n, func(a string) { fmt.Println("hello: serving on http://" + a) }); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}

// serve runs the server until ctx is done; ready gets the bound address.
func serve(ctx context.Context, addr string, executors int, ready func(string)) error {
	rt, err := task.NewRuntime(executors)
	if err != nil {
		return err
	}
	defer rt.Close()
	ln, err := rt.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Hello, World!")
	}), ReadHeaderTimeout: 10 * time.Second}
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
