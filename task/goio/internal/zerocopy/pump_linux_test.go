//go:build linux

package zerocopy

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// Pump moves what fill gives through drain until remain is spent or the
// source ends; a first fill refused by the kernel (EINVAL, EOPNOTSUPP,
// ENOSYS) is ErrNotHandled, a later one the error itself; a refused drain
// before anything moved is ErrNotHandled only for a source that can be
// read again; a drain that moves nothing is io.ErrShortWrite and closes
// the pipe (bytes may be left in it).
func TestPump(t *testing.T) {
	var p Pipe
	require.NoError(t, p.Get())
	defer p.Close()
	require.Positive(t, p.Size)

	src := 10
	fill := func(n uint32) (int, error) { m := min(int(n), src, 4); src -= m; return m, nil }
	var got int
	drain := func(n int) (int, error) { got += n; return n, nil }
	n, err := Pump(&p, 100, fill, drain, false)
	require.NoError(t, err)
	require.Equal(t, int64(10), n, "to the source's end")
	require.Equal(t, 10, got)

	src, got = 10, 0
	n, err = Pump(&p, 6, fill, drain, false)
	require.NoError(t, err)
	require.Equal(t, int64(6), n, "remain")

	refuse := func(uint32) (int, error) { return 0, unix.EINVAL }
	n, err = Pump(&p, 10, refuse, drain, false)
	require.ErrorIs(t, err, ErrNotHandled)
	require.Zero(t, n)
	n, err = Pump(&p, 10, func(uint32) (int, error) { return 0, unix.EIO }, drain, false)
	require.ErrorIs(t, err, unix.EIO)
	require.Zero(t, n)

	src = 10
	refuseDrain := func(int) (int, error) { return 0, unix.EOPNOTSUPP }
	_, err = Pump(&p, 10, fill, refuseDrain, true)
	require.ErrorIs(t, err, ErrNotHandled, "a rereadable source is copied another way")
	require.NoError(t, p.Get())
	src = 10
	_, err = Pump(&p, 10, fill, refuseDrain, false)
	require.ErrorIs(t, err, unix.EOPNOTSUPP, "bytes were consumed: the error stands")
	require.NoError(t, p.Get())
	src = 10
	_, err = Pump(&p, 10, fill, func(int) (int, error) { return 0, nil }, false)
	require.ErrorIs(t, err, io.ErrShortWrite)

	require.True(t, Refused(unix.ENOSYS))
	require.False(t, Refused(errors.New("other")))
}

func TestLimited(t *testing.T) {
	r, lr, n := Limited(io.LimitReader(strings.NewReader("abc"), 2))
	require.NotNil(t, lr)
	require.Equal(t, int64(2), n)
	require.Equal(t, lr.R, r)
	r, lr, n = Limited(strings.NewReader("abc"))
	require.Nil(t, lr)
	require.Equal(t, int64(math.MaxInt64), n)
	require.NotNil(t, r)
}
