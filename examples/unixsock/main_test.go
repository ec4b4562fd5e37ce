package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/internal/testutil"
)

func TestUnixSock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "api.sock")
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, path, func(p string) { ready <- p }) }()
	select {
	case p := <-ready:
		require.Equal(t, path, p)
	case err := <-done:
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		body, err := fetch(context.Background(), path, "/hello")
		require.NoError(t, err)
		require.Equal(t, "hello over "+path+" from @", body)
	}
	_, err := fetch(context.Background(), path, "/missing")
	require.ErrorContains(t, err, "404")
	cancel()
	require.NoError(t, <-done)
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "the socket's path goes with the server")
}

// TestMain runs the tests, then again where io_uring is denied (a seccomp
// filter; kernel.io_uring_disabled = 2 when URING_SYSCTL_TESTS=1): the
// example serves the same on the task layer's fallback.
func TestMain(m *testing.M) { testutil.MainDenied(m) }
