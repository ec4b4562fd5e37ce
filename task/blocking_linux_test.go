//go:build linux

package task

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Blocking parks only its task: while fn blocks, another task of the same
// executor runs, and it is that task that lets fn return.
func TestBlockingParksOnlyTheTask(t *testing.T) {
	ex := newExec(t)
	release := make(chan struct{})
	var got int
	err := runTask(t, ex, func(tk *T) error {
		h := Spawn(tk, func(tk *T) (struct{}, error) {
			close(release) // runs while the other task waits in Blocking
			return struct{}{}, nil
		})
		v, err := Blocking(tk, func() (int, error) { <-release; return 42, nil })
		if err != nil {
			return err
		}
		got = v
		_, err = h.Join(tk)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 42, got)
}

// fn's error and panic come back as the call's error; a nil fn or t is an
// argument error naming it.
func TestBlockingErrorsAndPanics(t *testing.T) {
	ex := newExec(t)
	boom := errors.New("boom")
	var errs [3]error
	err := runTask(t, ex, func(tk *T) error {
		_, errs[0] = Blocking(tk, func() (int, error) { return 0, boom })
		_, errs[1] = Blocking(tk, func() (int, error) { panic("bad") })
		_, errs[2] = Blocking[int](tk, nil)
		return nil
	})
	require.NoError(t, err)
	require.ErrorIs(t, errs[0], boom)
	require.ErrorContains(t, errs[1], "panic in Blocking: bad")
	var ae *ArgError
	require.ErrorAs(t, errs[2], &ae)
	require.Contains(t, errs[2].Error(), "fn")
	_, err = Blocking(nil, func() (int, error) { return 1, nil })
	require.ErrorContains(t, err, "t")
}

// A cancelled context ends the wait at once; fn runs on, its result dropped.
func TestBlockingCancelled(t *testing.T) {
	ex := newExec(t)
	ctx, cancel := context.WithCancel(context.Background())
	stuck := make(chan struct{})
	defer close(stuck)
	h := SpawnOn(ctx, ex, func(tk *T) (int, error) {
		return Blocking(tk, func() (int, error) { <-stuck; return 1, nil })
	})
	time.Sleep(10 * time.Millisecond)
	cancel()
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	_, err := h.Wait(wctx)
	require.ErrorIs(t, err, context.Canceled)
}

// T.ReadDir lists as os.ReadDir does.
func TestTaskReadDir(t *testing.T) {
	ex := newExec(t)
	dir := t.TempDir()
	for _, n := range []string{"b", "a", "c"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
	var names []string
	err := runTask(t, ex, func(tk *T) error {
		ents, err := tk.ReadDir(dir)
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return err
	})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, names)
	err = runTask(t, ex, func(tk *T) error { _, err := tk.ReadDir(filepath.Join(dir, "none")); return err })
	require.ErrorIs(t, err, os.ErrNotExist)
}

// T.LookupNetIP resolves as net's resolver does ("localhost" from
// /etc/hosts or the resolver's built-in answer).
func TestTaskLookupNetIP(t *testing.T) {
	ex := newExec(t)
	var ips []netip.Addr
	err := runTask(t, ex, func(tk *T) error {
		var err error
		ips, err = tk.LookupNetIP("ip4", "127.0.0.1")
		return err
	})
	require.NoError(t, err)
	require.Len(t, ips, 1)
	require.Equal(t, netip.MustParseAddr("127.0.0.1"), ips[0].Unmap()) // net gives it as ::ffff:127.0.0.1
}

// The runtime says which backend its executors run on.
func TestRuntimeBackend(t *testing.T) {
	rt := newRuntime(t, 2)
	want := BackendIOUring
	if onFallback() {
		want = BackendFallback
	}
	require.Equal(t, want, rt.Backend().Kind)
	require.Equal(t, want, ChooseBackend(backendOpts()...).Kind)
	require.Equal(t, BackendFallback, ChooseBackend(WithoutIOUring()).Kind)
	require.Equal(t, Backend{}, (*Runtime)(nil).Backend())
}
