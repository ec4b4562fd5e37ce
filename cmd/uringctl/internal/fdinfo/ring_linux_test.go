//go:build linux

package fdinfo

import (
	"sync/atomic"
	"testing"

	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// testRing is the smallest ring the tests need: it can queue SQEs without
// submitting them, so fdinfo shows pending SQEs, and submit them later.
type testRing struct {
	fd            int
	p             sys.Params
	sq, cq, sqes  []byte
	array         []uint32
	sqTail        *uint32
	sqMask, sqOff uint32
	local         uint32
}

func newTestRing(t testing.TB, entries uint32, p sys.Params) *testRing {
	t.Helper()
	fd, err := sys.Setup(entries, &p)
	if err != nil {
		t.Skipf("io_uring_setup(%d, flags %#x) not available here: %v", entries, uint32(p.Flags), err)
	}
	r := &testRing{fd: fd, p: p}
	t.Cleanup(func() { r.close() })
	sqeSize, cqeSize := uint32(64), uint32(16)
	if p.Flags&sys.SetupSQE128 != 0 {
		sqeSize = 128
	}
	if p.Flags&sys.SetupCQE32 != 0 {
		cqeSize = 32
	}
	sqSize := p.SQOff.Array + p.SQEntries*4
	if p.Flags&sys.SetupNoSQArray != 0 {
		sqSize = p.CQOff.CQEs + p.CQEntries*cqeSize // no array: the SQ ring shares the CQ ring's region
	}
	r.sq, err = sys.Mmap(fd, sys.OffSQRing, int(sqSize))
	require.NoError(t, err)
	r.cq, err = sys.Mmap(fd, sys.OffCQRing, int(p.CQOff.CQEs+p.CQEntries*cqeSize))
	require.NoError(t, err)
	r.sqes, err = sys.Mmap(fd, sys.OffSQEs, int(p.SQEntries*sqeSize))
	require.NoError(t, err)
	if p.Flags&sys.SetupNoSQArray == 0 {
		r.array = sys.Uint32sAt(r.sq, p.SQOff.Array, p.SQEntries)
	}
	r.sqTail = sys.Uint32At(r.sq, p.SQOff.Tail)
	r.sqMask = *sys.Uint32At(r.sq, p.SQOff.RingMask)
	r.sqOff = sqeSize / 64
	r.local = atomic.LoadUint32(r.sqTail)
	return r
}

// queue writes n SQEs of op and publishes the SQ tail without entering.
func (r *testRing) queue(t testing.TB, n int, op sys.Op, fd int32, userData uint64) {
	t.Helper()
	all := sys.SQEsAt(r.sqes, 0, uint32(len(r.sqes)/64))
	for range n {
		idx := r.local & r.sqMask
		s := &all[idx*r.sqOff]
		*s = sys.SQE{Opcode: op, Fd: fd, UserData: userData}
		if r.array != nil {
			r.array[idx] = idx
		}
		r.local++
	}
	atomic.StoreUint32(r.sqTail, r.local) // pairs with the kernel's READ_ONCE of sq.tail
}

func (r *testRing) submit(t testing.TB, n, wait uint32) {
	t.Helper()
	flags := sys.EnterFlags(0)
	if wait > 0 {
		flags = sys.EnterGetEvents
	}
	got, err := sys.Enter(r.fd, n, wait, flags)
	require.NoError(t, err)
	require.EqualValues(t, n, got)
}

// registerFiles registers fds (-1 = empty slot).
func (r *testRing) registerFiles(t testing.TB, fds []int32) {
	t.Helper()
	_, err := sys.RegisterSlice(r.fd, sys.RegisterFiles, fds)
	require.NoError(t, err)
}

// registerBuffers registers n buffers of size bytes each, off the Go heap.
func (r *testRing) registerBuffers(t testing.TB, n, size int) {
	t.Helper()
	mem, err := sys.MmapAnon(n*size, false)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sys.Munmap(mem) })
	iov := make([]unix.Iovec, n)
	for i := range iov {
		b := mem[i*size : (i+1)*size]
		iov[i].Base = &b[0]
		iov[i].SetLen(size)
	}
	_, err = sys.RegisterSlice(r.fd, sys.RegisterBuffers, iov)
	require.NoError(t, err)
}

func (r *testRing) close() {
	_ = sys.Munmap(r.sqes)
	_ = sys.Munmap(r.cq)
	_ = sys.Munmap(r.sq)
	if r.fd >= 0 {
		_ = sys.Close(r.fd)
		r.fd = -1
	}
}
