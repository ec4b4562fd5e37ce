package task

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The tests in this file use only the API every OS has (Linux, macOS, the
// BSDs, Windows): CI compiles them for each, and on Linux they run on both
// backends.

// Tasks started from goroutines, talking over a channel, sleeping,
// running a blocking call, and a deadline ending a sleep.
func TestPortableScheduler(t *testing.T) {
	ex, err := NewExecutor(backendOpts()...)
	require.NoError(t, err)
	defer func() { require.NoError(t, ex.Close()) }()
	schedulerWorkload(t, ex)
}

// schedulerWorkload runs on ex: tasks started from goroutines, a channel
// ping-pong with sleeps, a blocking call, a deadline ending an hour-long
// sleep; it asserts every result.
func schedulerWorkload(t *testing.T, ex *Executor) {
	var wg sync.WaitGroup
	sums := make([]int, 4)
	for g := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				v, err := Run(context.Background(), ex, func(tk *T) (int, error) { return i, nil })
				if err != nil {
					return
				}
				sums[g] += v
			}
		}()
	}
	wg.Wait()
	for g, s := range sums {
		require.Equal(t, 49*50/2, s, "goroutine %d", g)
	}

	got, err := Run(context.Background(), ex, func(tk *T) (int, error) {
		c := NewChan[int](tk, 0)
		h := Spawn(tk, func(tk *T) (int, error) {
			sum := 0
			for i := 0; i < 20; i++ {
				v, _, err := c.Recv(tk)
				if err != nil {
					return 0, err
				}
				sum += v
				if err := tk.Sleep(time.Millisecond); err != nil {
					return 0, err
				}
			}
			return sum, nil
		})
		for i := 1; i <= 20; i++ {
			if err := c.Send(tk, i); err != nil {
				return 0, err
			}
		}
		sum, err := h.Join(tk)
		if err != nil {
			return 0, err
		}
		b, err := Blocking(tk, func() (int, error) { time.Sleep(2 * time.Millisecond); return 1000, nil })
		if err != nil {
			return 0, err
		}
		ctx, cancel := context.WithTimeout(tk.Context(), 10*time.Millisecond)
		defer cancel()
		sh := SpawnContext(ctx, tk, func(tk *T) (struct{}, error) { return struct{}{}, tk.Sleep(time.Hour) })
		if _, err := sh.Join(tk); !errors.Is(err, context.DeadlineExceeded) {
			return 0, errors.New("the hour-long sleep did not end at its deadline: " + errString(err))
		}
		return sum + b, nil
	})
	require.NoError(t, err)
	require.Equal(t, 20*21/2+1000, got)
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// The goroutine adapters: a TCP echo through Listen and Dial, a UDP echo
// through ListenPacket, a file written, sought, statted and read back
// through OpenFile; after Runtime.Close the listener accepts no more.
func TestPortableAdapters(t *testing.T) {
	rt, err := NewRuntime(2, backendOpts()...)
	require.NoError(t, err)
	closed := false
	defer func() {
		if !closed {
			require.NoError(t, rt.Close())
		}
	}()

	ln, err := rt.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := rt.Dial(ctx, "tcp", ln.Addr().String())
	require.NoError(t, err)
	msg := bytes.Repeat([]byte("portable "), 10000)
	go func() { _, _ = c.Write(msg) }()
	back := make([]byte, len(msg))
	_, err = io.ReadFull(c, back)
	require.NoError(t, err)
	require.Equal(t, msg, back)
	require.Equal(t, ln.Addr().String(), c.RemoteAddr().String())
	require.NoError(t, c.Close())

	pc, err := rt.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	peer, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer peer.Close()
	_, err = pc.WriteTo([]byte("ping"), peer.LocalAddr())
	require.NoError(t, err)
	buf := make([]byte, 16)
	require.NoError(t, peer.SetReadDeadline(time.Now().Add(30*time.Second)))
	n, from, err := peer.ReadFrom(buf)
	require.NoError(t, err)
	require.Equal(t, "ping", string(buf[:n]))
	require.Equal(t, pc.LocalAddr().String(), from.String())

	path := filepath.Join(t.TempDir(), "f")
	f, err := rt.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	_, err = f.Write([]byte("hello, file"))
	require.NoError(t, err)
	end, err := f.Seek(-4, io.SeekEnd)
	require.NoError(t, err)
	require.Equal(t, int64(7), end)
	tail := make([]byte, 4)
	_, err = io.ReadFull(f, tail)
	require.NoError(t, err)
	require.Equal(t, "file", string(tail))
	fi, err := f.Stat()
	require.NoError(t, err)
	require.Equal(t, int64(11), fi.Size())
	require.Equal(t, path, f.Name())

	require.NoError(t, f.Close())

	// Runtime.Close ends the listener left open.
	closed = true
	require.NoError(t, rt.Close())
	_, err = ln.Accept()
	require.Error(t, err)
}
