//go:build linux

package goio

import (
	"bytes"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/task/goio/internal/zerocopy"
)

// randomData is n reproducible random bytes.
func randomData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// readAllAsync reads c to EOF on another goroutine; the result comes on
// the channel.
func readAllAsync(c net.Conn) <-chan []byte {
	ch := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(c)
		ch <- b
	}()
	return ch
}

// spliceUsed asserts that fn moved its data through splice.
func spliceUsed(t *testing.T, want bool, fn func()) {
	t.Helper()
	before := zerocopy.Spliced.Load()
	fn()
	require.Equal(t, want, zerocopy.Spliced.Load() > before, "splice used")
}

// TestConnReadFromSendfile: a regular file goes into a Conn whose waits
// are the netpoller's through sendfile(2) from the caller's goroutine, and
// through the ring's splices with WithRingConnWaits; every byte arrives.
func TestConnReadFromSendfile(t *testing.T) {
	rt := newRuntime(t, 1)
	data := randomData(5<<20+7, 3)
	p := writeTemp(t, data)
	f, err := On(rt).OpenFile(p, os.O_RDONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Seek(3, io.SeekStart)
	require.NoError(t, err)
	d, a := pairOf(t, rtListen(rt), netDial, "tcp")
	got := readAllAsync(d)
	before := zerocopy.Sentfile.Load()
	n, err := a.(*Conn).ReadFrom(f)
	require.NoError(t, err)
	require.EqualValues(t, len(data)-3, n)
	require.NoError(t, a.Close())
	b := <-got
	require.Equal(t, sha256.Sum256(data[3:]), sha256.Sum256(b))
	pos, err := f.Seek(0, io.SeekCurrent)
	require.NoError(t, err)
	require.EqualValues(t, len(data), pos)
	ring := rt.Executors()[0].RingConnWaits()
	require.Equal(t, !ring, zerocopy.Sentfile.Load() > before, "sendfile used (ring waits: %v)", ring)
}

// Conn.ReadFrom sends a File, a regular *os.File (also through os's own
// io.Copy wrapper), a limited part of either, and another Conn through
// splice; a plain reader through a buffer. Every byte arrives (checked by
// SHA-256), the files' offsets move as os's do.
func TestConnReadFromSplice(t *testing.T) {
	rt := newRuntime(t, 2)
	data := randomData(3<<20+12345, 1)
	sum := sha256.Sum256(data)
	p := writeTemp(t, data)

	send := func(t *testing.T, wantSplice bool, fn func(c net.Conn) (int64, error), want []byte) {
		t.Helper()
		d, a := pairOf(t, rtListen(rt), netDial, "tcp")
		got := readAllAsync(d)
		spliceUsed(t, wantSplice, func() {
			n, err := fn(a)
			require.NoError(t, err)
			require.EqualValues(t, len(want), n)
		})
		require.NoError(t, a.Close())
		b := <-got
		require.Equal(t, len(want), len(b))
		require.Equal(t, sha256.Sum256(want), sha256.Sum256(b))
	}

	t.Run("File", func(t *testing.T) {
		f, err := On(rt).OpenFile(p, os.O_RDONLY, 0)
		require.NoError(t, err)
		defer f.Close()
		send(t, true, func(c net.Conn) (int64, error) { return c.(*Conn).ReadFrom(f) }, data)
		pos, _ := f.Seek(0, io.SeekCurrent)
		require.EqualValues(t, len(data), pos)
	})
	t.Run("io.Copy-File", func(t *testing.T) {
		f, err := On(rt).OpenFile(p, os.O_RDONLY, 0)
		require.NoError(t, err)
		defer f.Close()
		_, err = f.Seek(1000, io.SeekStart)
		require.NoError(t, err)
		send(t, true, func(c net.Conn) (int64, error) { return io.Copy(c, f) }, data[1000:]) // File.WriteTo
	})
	t.Run("LimitedReader-File", func(t *testing.T) {
		f, err := On(rt).OpenFile(p, os.O_RDONLY, 0)
		require.NoError(t, err)
		defer f.Close()
		_, err = f.Seek(77, io.SeekStart)
		require.NoError(t, err)
		lr := &io.LimitedReader{R: f, N: 2<<20 + 3}
		send(t, true, func(c net.Conn) (int64, error) { return c.(*Conn).ReadFrom(lr) }, data[77:77+2<<20+3])
		require.Zero(t, lr.N)
		pos, _ := f.Seek(0, io.SeekCurrent)
		require.EqualValues(t, 77+2<<20+3, pos)
	})
	t.Run("os.File", func(t *testing.T) {
		f, err := os.Open(p)
		require.NoError(t, err)
		defer f.Close()
		_, err = f.Seek(5, io.SeekStart)
		require.NoError(t, err)
		send(t, true, func(c net.Conn) (int64, error) { return c.(*Conn).ReadFrom(f) }, data[5:])
		pos, _ := f.Seek(0, io.SeekCurrent)
		require.EqualValues(t, len(data), pos)
	})
	t.Run("io.Copy-os.File", func(t *testing.T) {
		f, err := os.Open(p)
		require.NoError(t, err)
		defer f.Close()
		// os.File.WriteTo hands Conn.ReadFrom os's own wrapper of f.
		send(t, true, func(c net.Conn) (int64, error) { return io.Copy(c, f) }, data)
	})
	t.Run("LimitedReader-os.File", func(t *testing.T) {
		f, err := os.Open(p)
		require.NoError(t, err)
		defer f.Close()
		lr := &io.LimitedReader{R: f, N: 100}
		send(t, true, func(c net.Conn) (int64, error) { return c.(*Conn).ReadFrom(lr) }, data[:100])
		require.Zero(t, lr.N)
	})
	t.Run("File-unix", func(t *testing.T) {
		f, err := On(rt).OpenFile(p, os.O_RDONLY, 0)
		require.NoError(t, err)
		defer f.Close()
		d, a := pairOf(t, rtListen(rt), netDial, "unix")
		got := readAllAsync(d)
		spliceUsed(t, true, func() {
			n, err := a.(*Conn).ReadFrom(f)
			require.NoError(t, err)
			require.EqualValues(t, len(data), n)
		})
		require.NoError(t, a.Close())
		require.Equal(t, sum, sha256.Sum256(<-got))
	})
	t.Run("Reader", func(t *testing.T) {
		send(t, false, func(c net.Conn) (int64, error) { return c.(*Conn).ReadFrom(bytes.NewReader(data)) }, data)
	})
	t.Run("pipe-os.File", func(t *testing.T) {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		defer r.Close()
		go func() { w.Write(data[:100000]); w.Close() }()
		send(t, false, func(c net.Conn) (int64, error) { return c.(*Conn).ReadFrom(r) }, data[:100000])
	})
	t.Run("Conn", func(t *testing.T) {
		// A proxy: from one runtime conn into another.
		sd, sa := pairOf(t, rtListen(rt), netDial, "tcp")
		go func() { sd.Write(data); sd.(*net.TCPConn).CloseWrite() }()
		send(t, true, func(c net.Conn) (int64, error) { return io.Copy(c, sa) }, data)
	})
}

// Conn.WriteTo writes what the peer sends into a File or a regular
// *os.File at its offset through splice, into anything else through a
// buffer; File.ReadFrom does the same from the File's side.
func TestConnWriteToSplice(t *testing.T) {
	rt := newRuntime(t, 2)
	data := randomData(2<<20+999, 2)
	recv := func(t *testing.T, wantSplice bool, fn func(c net.Conn) (int64, error)) {
		t.Helper()
		d, a := pairOf(t, rtListen(rt), netDial, "tcp")
		go func() { d.Write(data); d.Close() }()
		spliceUsed(t, wantSplice, func() {
			n, err := fn(a)
			require.NoError(t, err)
			require.EqualValues(t, len(data), n)
		})
	}
	dir := t.TempDir()
	t.Run("File", func(t *testing.T) {
		p := filepath.Join(dir, "a")
		f, err := On(rt).OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
		require.NoError(t, err)
		defer f.Close()
		_, err = f.Write([]byte("head:"))
		require.NoError(t, err)
		recv(t, true, func(c net.Conn) (int64, error) { return c.(*Conn).WriteTo(f) })
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, sha256.Sum256(append([]byte("head:"), data...)), sha256.Sum256(got))
		pos, _ := f.Seek(0, io.SeekCurrent)
		require.EqualValues(t, len(got), pos)
	})
	t.Run("File.ReadFrom", func(t *testing.T) {
		p := filepath.Join(dir, "b")
		f, err := On(rt).OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
		require.NoError(t, err)
		defer f.Close()
		recv(t, true, func(c net.Conn) (int64, error) { return f.ReadFrom(c) })
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, sha256.Sum256(data), sha256.Sum256(got))
	})
	t.Run("os.File", func(t *testing.T) {
		p := filepath.Join(dir, "c")
		f, err := os.Create(p)
		require.NoError(t, err)
		defer f.Close()
		recv(t, true, func(c net.Conn) (int64, error) { return c.(*Conn).WriteTo(f) })
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, sha256.Sum256(data), sha256.Sum256(got))
		pos, _ := f.Seek(0, io.SeekCurrent)
		require.EqualValues(t, len(data), pos)
	})
	t.Run("O_APPEND-os.File", func(t *testing.T) {
		p := filepath.Join(dir, "d")
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
		require.NoError(t, err)
		defer f.Close()
		recv(t, false, func(c net.Conn) (int64, error) { return c.(*Conn).WriteTo(f) })
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, sha256.Sum256(data), sha256.Sum256(got))
	})
	t.Run("Buffer", func(t *testing.T) {
		var b bytes.Buffer
		recv(t, false, func(c net.Conn) (int64, error) { return c.(*Conn).WriteTo(&b) })
		require.Equal(t, sha256.Sum256(data), sha256.Sum256(b.Bytes()))
	})
}

// File to File, and File to and from a regular *os.File, through splice,
// at each file's offset.
func TestFileCopySplice(t *testing.T) {
	rt := newRuntime(t, 1)
	data := randomData(1<<20+4321, 3)
	src := writeTemp(t, data)
	dir := t.TempDir()
	open := func(p string, flags int) *File {
		f, err := On(rt).OpenFile(p, flags, 0o600)
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		return f
	}
	check := func(p string, want []byte) {
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, sha256.Sum256(want), sha256.Sum256(got))
	}
	in := open(src, os.O_RDONLY)
	out := open(filepath.Join(dir, "1"), os.O_RDWR|os.O_CREATE)
	spliceUsed(t, true, func() {
		n, err := io.Copy(out, in)
		require.NoError(t, err)
		require.EqualValues(t, len(data), n)
	})
	check(filepath.Join(dir, "1"), data)

	of, err := os.Open(src)
	require.NoError(t, err)
	defer of.Close()
	_, err = of.Seek(10, io.SeekStart)
	require.NoError(t, err)
	out2 := open(filepath.Join(dir, "2"), os.O_RDWR|os.O_CREATE)
	spliceUsed(t, true, func() {
		n, err := out2.ReadFrom(&io.LimitedReader{R: of, N: 1000})
		require.NoError(t, err)
		require.EqualValues(t, 1000, n)
	})
	check(filepath.Join(dir, "2"), data[10:1010])

	in3 := open(src, os.O_RDONLY)
	of3, err := os.Create(filepath.Join(dir, "3"))
	require.NoError(t, err)
	defer of3.Close()
	spliceUsed(t, true, func() {
		n, err := in3.WriteTo(of3)
		require.NoError(t, err)
		require.EqualValues(t, len(data), n)
	})
	check(filepath.Join(dir, "3"), data)

	// Into a plain writer, and from a plain reader: a buffer.
	in4 := open(src, os.O_RDONLY)
	var b bytes.Buffer
	spliceUsed(t, false, func() {
		n, err := in4.WriteTo(&b)
		require.NoError(t, err)
		require.EqualValues(t, len(data), n)
	})
	require.Equal(t, data, b.Bytes())
	out5 := open(filepath.Join(dir, "5"), os.O_RDWR|os.O_CREATE)
	spliceUsed(t, false, func() {
		n, err := out5.ReadFrom(strings.NewReader("plain"))
		require.NoError(t, err)
		require.EqualValues(t, 5, n)
	})
	check(filepath.Join(dir, "5"), []byte("plain"))

	// A closed File is refused as os refuses one.
	require.NoError(t, in.Close())
	_, err = out.ReadFrom(in)
	require.ErrorIs(t, err, os.ErrClosed)
}

// A splice into a peer that does not read blocks; Close ends it with
// net.ErrClosed and a write deadline with os.ErrDeadlineExceeded, as they
// end a Write. The conn's next ReadFrom starts clean.
func TestConnReadFromInterrupted(t *testing.T) {
	rt := newRuntime(t, 1)
	data := randomData(32<<20, 4)
	p := writeTemp(t, data)
	f, err := On(rt).OpenFile(p, os.O_RDONLY, 0)
	require.NoError(t, err)
	defer f.Close()

	d, a := pairOf(t, rtListen(rt), netDial, "tcp")
	c := a.(*Conn)
	require.NoError(t, c.SetWriteDeadline(time.Now().Add(100*time.Millisecond)))
	n, err := c.ReadFrom(f)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	var op *net.OpError
	require.ErrorAs(t, err, &op)
	require.Equal(t, "readfrom", op.Op)
	require.Less(t, n, int64(len(data)))

	// Start again from the beginning: the peer gets what was sent, then
	// exactly the file (nothing left over in the pipe).
	require.NoError(t, c.SetWriteDeadline(time.Time{}))
	_, err = f.Seek(0, io.SeekStart)
	require.NoError(t, err)
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(d)
		got <- b
	}()
	m, err := c.ReadFrom(&io.LimitedReader{R: f, N: 1 << 20})
	require.NoError(t, err)
	require.EqualValues(t, 1<<20, m)
	require.NoError(t, c.Close())
	b := <-got
	require.Equal(t, int(n)+1<<20, len(b))
	require.Equal(t, data[:n], b[:n])
	require.Equal(t, data[:1<<20], b[n:])

	d2, a2 := pairOf(t, rtListen(rt), netDial, "tcp")
	_ = d2
	errc := make(chan error, 1)
	go func() {
		_, err := a2.(*Conn).ReadFrom(&io.LimitedReader{R: f, N: int64(len(data))})
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, a2.Close())
	select {
	case err := <-errc:
		require.ErrorIs(t, err, net.ErrClosed)
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("Close did not end a ReadFrom blocked in splice")
	}
}

// A copy asked for more than the file holds sends the file and stops at
// its end (the linked chain broken by the short splice, the rest one
// splice at a time), as net's sendfile does; a copy from an offset not on
// a page boundary, and from past the end, too.
func TestConnReadFromFileEnds(t *testing.T) {
	rt := newRuntime(t, 1)
	data := randomData(9<<20+333, 5)
	p := writeTemp(t, data)
	for _, tc := range []struct {
		start, limit int64
	}{{0, int64(len(data)) + 100}, {12345, 1 << 40}, {int64(len(data)), 10}, {int64(len(data)) + 5, 10}, {4096, 8 << 20}} {
		f, err := On(rt).OpenFile(p, os.O_RDONLY, 0)
		require.NoError(t, err)
		_, err = f.Seek(tc.start, io.SeekStart)
		require.NoError(t, err)
		d, a := pairOf(t, rtListen(rt), netDial, "tcp")
		got := readAllAsync(d)
		lr := &io.LimitedReader{R: f, N: tc.limit}
		n, err := a.(*Conn).ReadFrom(lr)
		require.NoError(t, err)
		start := min(tc.start, int64(len(data)))
		want := data[start:min(start+tc.limit, int64(len(data)))]
		require.EqualValues(t, len(want), n, "from %d, up to %d", tc.start, tc.limit)
		require.Equal(t, tc.limit-n, lr.N)
		pos, _ := f.Seek(0, io.SeekCurrent)
		require.Equal(t, max(tc.start, start+n), pos)
		require.NoError(t, a.Close())
		b := <-got
		require.Equal(t, sha256.Sum256(want), sha256.Sum256(b))
		require.NoError(t, f.Close())
	}
}

// A write deadline moved later while a copy waits on a peer that does not
// read keeps it going until the new deadline, not the old one.
func TestConnReadFromDeadlineMoved(t *testing.T) {
	rt := newRuntime(t, 1)
	p := writeTemp(t, randomData(48<<20, 6))
	f, err := On(rt).OpenFile(p, os.O_RDONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	_, a := pairOf(t, rtListen(rt), netDial, "tcp")
	c := a.(*Conn)
	require.NoError(t, c.SetWriteDeadline(time.Now().Add(100*time.Millisecond)))
	moved := make(chan time.Time, 1)
	go func() {
		time.Sleep(30 * time.Millisecond)
		later := time.Now().Add(400 * time.Millisecond)
		c.SetWriteDeadline(later)
		moved <- later
	}()
	_, err = c.ReadFrom(f)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.False(t, time.Now().Before(<-moved), "the copy ended before its new deadline")
}
