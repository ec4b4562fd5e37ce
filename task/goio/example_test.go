package goio_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/pure-uring/uring/task"
	"github.com/pure-uring/uring/task/goio"
)

// net/http, unchanged, serves on the runtime's listener, and a client
// dials through the runtime.
func Example() {
	rt, err := task.NewRuntime(1) // the fallback backend where io_uring is not there
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close()
	env := goio.On(rt)

	ln, err := env.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Hello, World!")
	})}
	go srv.Serve(ln)
	defer srv.Close()

	tr := &http.Transport{DialContext: env.Dial}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body), err)
	// Output: Hello, World! <nil>
}

// A File reads like an *os.File: here at an offset, then from its
// position to the end.
func ExampleEnv_OpenFile() {
	dir, err := os.MkdirTemp("", "goio-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "greeting")
	if err := os.WriteFile(path, []byte("Hello, file!"), 0o600); err != nil {
		fmt.Println(err)
		return
	}

	rt, err := task.NewRuntime(1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close()
	f, err := goio.On(rt).OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	word := make([]byte, 4)
	if _, err := f.ReadAt(word, 7); err != nil {
		fmt.Println(err)
		return
	}
	all, err := io.ReadAll(f)
	fmt.Printf("%s / %s %v\n", word, all, err)
	// Output: file / Hello, file! <nil>
}

// An unchanged http.Server serves on the runtime: serveHTTP is the
// README's quick start (its body is the README's snippet, byte for byte;
// TestREADMESnippets checks it).
func Example_serveHTTP() {
	addr := make(chan string, 1)
	srv := &http.Server{
		Addr: "127.0.0.1:0",
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "Hello from the runtime")
		}),
		// Serve calls it with the listener: the example learns the port.
		BaseContext: func(ln net.Listener) context.Context {
			addr <- ln.Addr().String()
			return context.Background()
		},
	}
	done := make(chan error, 1)
	go func() { done <- serveHTTP(srv) }()
	var at string
	select {
	case at = <-addr:
	case err := <-done:
		fmt.Println(err)
		return
	}
	resp, err := http.Get("http://" + at + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	srv.Close()
	fmt.Println(string(body), err, errors.Is(<-done, http.ErrServerClosed))
	// Output: Hello from the runtime <nil> true
}

func serveHTTP(srv *http.Server) error {
	rt, err := task.NewRuntime(0) // one executor per CPU
	if err != nil {
		return err
	}
	defer rt.Close() // closes what its Env made, too
	env := goio.On(rt)
	ln, err := env.Listen("tcp", srv.Addr) // Dial, ListenPacket, OpenFile alike
	if err != nil {
		return err
	}
	return srv.Serve(ln) // unchanged net/http; srv.Close ends it
}
