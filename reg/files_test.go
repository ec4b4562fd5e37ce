//go:build linux

package reg_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// fixedRead builds a read of buf through fixed-file slot.
func fixedRead(slot sqe.Slot, buf []byte) func(s *sys.SQE) error {
	return func(s *sys.SQE) error {
		if err := sqe.Read(s, 0, buf, sqe.CurrentPos); err != nil {
			return err
		}
		return sqe.SetSlot(s, slot)
	}
}

func TestFilesFixedReadWriteWithRegisteredBuffers(t *testing.T) {
	r := newRing(t, 8)
	f := tempFile(t)
	files, err := reg.RegisterFiles(r, []int{int(f.Fd())}, nil)
	require.NoError(t, err)
	require.Equal(t, uint32(1), files.Len())
	require.NoError(t, files.Validate(0))
	bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 2, Size: 4096})
	require.NoError(t, err)
	defer bufs.Unregister()

	src := bufs.Buf(0)
	for i := range src {
		src[i] = byte(i * 7)
	}
	require.NoError(t, bufs.Validate(0, 0, len(src)))
	require.NoError(t, bufs.Acquire())
	queue(t, r, 1, func(s *sys.SQE) error {
		if err := sqe.WriteFixed(s, 0, src, 512, 0); err != nil {
			return err
		}
		return sqe.SetSlot(s, 0)
	})
	submit(t, r)
	c := wait(t, r)
	require.Equal(t, int32(4096), c.Res)

	// The bytes are in the file; read part back through the fixed file into
	// buffer 1.
	dst := bufs.Buf(1)
	require.NoError(t, bufs.Validate(1, 0, 1000))
	queue(t, r, 2, func(s *sys.SQE) error {
		if err := sqe.ReadFixed(s, 0, dst[:1000], 512+100, 1); err != nil {
			return err
		}
		return sqe.SetSlot(s, 0)
	})
	submit(t, r)
	c = wait(t, r)
	bufs.Release()
	require.Equal(t, int32(1000), c.Res)
	require.Equal(t, src[100:1100], dst[:1000])

	got := make([]byte, 4096)
	_, err = unix.Pread(int(f.Fd()), got, 512)
	require.NoError(t, err)
	require.Equal(t, src, got)

	require.NoError(t, files.Unregister())
	require.ErrorIs(t, files.Validate(0), unix.EINVAL)
}

func TestFilesErrors(t *testing.T) {
	r := newRing(t, 4)
	rd, _ := pipe(t)
	_, err := reg.RegisterFiles(r, nil, nil)
	var ae *reg.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "len(fds)", ae.Arg)
	_, err = reg.RegisterFiles(r, []int{rd}, []uint64{1, 2})
	require.ErrorIs(t, err, unix.EINVAL)
	_, err = reg.RegisterFiles(r, []int{-5}, nil)
	require.ErrorContains(t, err, "fds[0] = -5")

	files, err := reg.RegisterFiles(r, []int{rd, reg.Empty}, nil)
	require.NoError(t, err)
	// A second table: the kernel says EBUSY, explained.
	_, err = reg.RegisterFiles(r, []int{rd}, nil)
	var re *reg.Error
	require.ErrorAs(t, err, &re)
	require.Equal(t, sys.RegisterFiles2, re.Op)
	require.Equal(t, unix.EBUSY, re.Errno())
	require.ErrorIs(t, err, unix.EBUSY)
	require.Contains(t, err.Error(), "REGISTER_FILES2")
	require.Contains(t, err.Error(), "already registered")

	// Out of range: rejected before any SQE is built.
	require.ErrorIs(t, files.Validate(2), unix.EINVAL)
	require.ErrorContains(t, files.Validate(2), "slot = 2 is out of range [0, 2)")
	_, err = files.Update(1, []int{rd, rd}, nil)
	require.ErrorContains(t, err, "runs past the table")
	// A closed fd: the kernel says EBADF.
	_, err = files.Update(1, []int{1 << 20}, nil)
	require.ErrorIs(t, err, unix.EBADF)

	require.NoError(t, files.Unregister())
	require.ErrorContains(t, files.Unregister(), "already unregistered")
	// Nothing registered: the kernel refuses any range, explained
	// (IORING_REGISTER_FILE_ALLOC_RANGE, 6.0).
	if has(t, uring.CheckRegisterOp(sys.RegisterFileAllocRange)) {
		err = files.SetAllocRange(0, 0)
		require.NoError(t, err, "an empty range fits an empty table")
		err = reg.SetAllocRangeUnchecked(r, 0, 1)
		require.ErrorIs(t, err, unix.EINVAL)
		require.ErrorContains(t, err, "REGISTER_FILE_ALLOC_RANGE")
		require.ErrorContains(t, err, "runs past the file table")
	} else {
		require.ErrorIs(t, files.SetAllocRange(0, 0), uring.ErrUnsupported)
	}
	// The same ring through a raw fd target.
	other, err := reg.RegisterFiles(reg.FdTarget(r.Fd()), []int{reg.Empty}, nil)
	require.NoError(t, err)
	require.NoError(t, other.Unregister())
}

// A table of empty slots, made sparse (IORING_RSRC_REGISTER_SPARSE, 5.19)
// or from Empty fds (every kernel).
func TestFilesSparseUpdateSkipAndTags(t *testing.T) {
	t.Run("sparse", func(t *testing.T) {
		testutil.Require(t, uring.CheckCapability(uring.CapSparseFiles))
		r := newRing(t, 8)
		files, err := reg.RegisterSparseFiles(r, 4)
		require.NoError(t, err)
		updateSkipAndTags(t, r, files)
	})
	t.Run("empty-fds", func(t *testing.T) {
		r := newRing(t, 8)
		files, err := reg.RegisterFiles(r, []int{reg.Empty, reg.Empty, reg.Empty, reg.Empty}, nil)
		require.NoError(t, err)
		updateSkipAndTags(t, r, files)
	})
}

func updateSkipAndTags(t *testing.T, r *uring.Ring, files *reg.Files) {
	rd, wr := pipe(t)
	n, err := files.Update(1, []int{rd, wr}, []uint64{0x1111, 0x2222})
	require.NoError(t, err)
	require.Equal(t, 2, n)
	// Skip leaves slot 1 alone, Empty releases slot 2: its tag CQE comes.
	n, err = files.Update(1, []int{reg.Skip, reg.Empty}, nil)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Empty(t, awaitTag(t, r, 0x2222))
	noCQE(t, r)

	// Slot 1 still reads the pipe.
	_, err = unix.Write(wr, []byte("abc"))
	require.NoError(t, err)
	buf := make([]byte, 8)
	queue(t, r, 5, fixedRead(1, buf))
	submit(t, r)
	c := wait(t, r)
	require.Equal(t, uint64(5), c.UserData)
	require.Equal(t, int32(3), c.Res)
	require.Equal(t, "abc", string(buf[:3]))

	// An empty slot fails in the kernel with EBADF.
	queue(t, r, 6, fixedRead(2, buf))
	submit(t, r)
	require.Equal(t, unix.EBADF, errno(t, wait(t, r).Res))

	// Unregister releases slot 1: its tag arrives (6.13+; before, no tag).
	require.NoError(t, files.Unregister())
	if syncTags(t) {
		require.Equal(t, sys.CQE{UserData: 0x1111}, wait(t, r))
	} else {
		require.Empty(t, settle(t, r, true))
	}
}

// Updating a slot while a request uses it: the request finishes on the old
// file, and the old file's tag CQE comes only after it.
func TestFilesUpdateWhileInFlight(t *testing.T) {
	r := newRing(t, 8)
	rdA, wrA := pipe(t)
	rdB, wrB := pipe(t)
	files, err := reg.RegisterFiles(r, []int{rdA}, []uint64{0xA})
	require.NoError(t, err)

	bufA := make([]byte, 16)
	queue(t, r, 1, fixedRead(0, bufA))
	submit(t, r)
	noCQE(t, r) // pending on the empty pipe A

	_, err = files.Update(0, []int{rdB}, []uint64{0xB})
	require.NoError(t, err)
	noCQE(t, r) // no tag yet: the read still holds file A

	_, err = unix.Write(wrB, []byte("new"))
	require.NoError(t, err)
	_, err = unix.Write(wrA, []byte("old"))
	require.NoError(t, err)
	c := wait(t, r)
	require.Equal(t, sys.CQE{UserData: 1, Res: 3}, c, "the read's CQE comes first")
	require.Equal(t, "old", string(bufA[:3]), "the in-flight read finished on the old file")
	require.Empty(t, awaitTag(t, r, 0xA), "then the tag of the released file")

	// A new read through the slot sees the new file.
	bufB := make([]byte, 16)
	queue(t, r, 2, fixedRead(0, bufB))
	submit(t, r)
	c = wait(t, r)
	require.Equal(t, sys.CQE{UserData: 2, Res: 3}, c)
	require.Equal(t, "new", string(bufB[:3]))

	require.NoError(t, files.Unregister())
	if syncTags(t) {
		require.Equal(t, sys.CQE{UserData: 0xB}, wait(t, r))
	} else {
		require.Empty(t, settle(t, r, true), "before 6.13 Unregister posts no tags")
	}
}

func TestFilesAllocRange(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterFileAllocRange))
	r := newRing(t, 8)
	files, err := reg.RegisterSparseFiles(r, 8)
	require.NoError(t, err)
	defer files.Unregister()
	require.ErrorContains(t, files.SetAllocRange(6, 4), "runs past the table")
	require.NoError(t, files.SetAllocRange(4, 2))

	path, err := sqe.Path("/dev/null")
	require.NoError(t, err)
	got := map[int32]bool{}
	for i := 0; i < 3; i++ {
		queue(t, r, uint64(i), func(s *sys.SQE) error {
			return sqe.OpenatDirect(s, unix.AT_FDCWD, path, unix.O_RDONLY, 0, sqe.AllocSlot)
		})
		submit(t, r)
		c := wait(t, r)
		if i < 2 {
			require.GreaterOrEqual(t, c.Res, int32(4))
			require.Less(t, c.Res, int32(6))
			got[c.Res] = true
		} else {
			require.Equal(t, unix.ENFILE, errno(t, c.Res), "the range is full")
		}
	}
	require.Len(t, got, 2)
}

func TestFixedFdInstall(t *testing.T) {
	testutil.Require(t, uring.CheckOp(sys.OpFixedFdInstall))
	r := newRing(t, 8)
	rd, wr := pipe(t)
	files, err := reg.RegisterFiles(r, []int{reg.Empty, wr}, nil)
	require.NoError(t, err)
	defer files.Unregister()
	slot := sqe.Slot(1)
	require.NoError(t, files.Validate(slot))
	queue(t, r, 9, func(s *sys.SQE) error { return sqe.InstallFd(s, slot, 0) })
	submit(t, r)
	c := wait(t, r)
	require.GreaterOrEqual(t, c.Res, int32(0))
	fd := int(c.Res)
	defer unix.Close(fd)
	require.NotEqual(t, wr, fd)
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.NoError(t, err)
	require.Equal(t, unix.FD_CLOEXEC, flags&unix.FD_CLOEXEC)
	_, err = unix.Write(fd, []byte("via installed fd"))
	require.NoError(t, err)
	buf := make([]byte, 32)
	n, err := unix.Read(rd, buf)
	require.NoError(t, err)
	require.Equal(t, "via installed fd", string(buf[:n]))

	// An empty slot cannot be installed.
	queue(t, r, 10, func(s *sys.SQE) error { return sqe.InstallFd(s, 0, 0) })
	submit(t, r)
	require.Equal(t, unix.EBADF, errno(t, wait(t, r).Res))
}
