//go:build linux

package task

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
)

// cachedFile writes 64 KiB of a pattern to a new file, which stays in
// the page cache, and returns it with its contents.
func cachedFile(t *testing.T) (*os.File, []byte) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "cached"))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	data := make([]byte, 64<<10)
	for i := range data {
		data[i] = byte(i*7 + i>>8)
	}
	_, err = f.Write(data)
	require.NoError(t, err)
	return f, data
}

// requireNowait skips the test where the file's filesystem cannot serve a
// cached read without blocking (preadv2 with RWF_NOWAIT answers EAGAIN:
// tmpfs before it had IOCB_NOWAIT, as in the kernel-test VMs' /tmp), so the
// page-cache shortcut always falls back to the ring there. It is a probe
// of the filesystem the test runs on, not of an io_uring feature.
func requireNowait(t *testing.T, fd int) {
	t.Helper()
	buf := make([]byte, 512)
	_, err := fdio.PreadNowait(fd, buf, 0)
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EOPNOTSUPP) {
		var st unix.Statfs_t
		_ = unix.Fstatfs(fd, &st)
		t.Skipf("preadv2(RWF_NOWAIT) of cached data answers %v on this filesystem (magic %#x): no page-cache shortcut here", err, st.Type)
	}
	require.NoError(t, err)
}

// evict writes f back and drops it from the page cache; false on tmpfs,
// whose pages cannot be dropped.
func evict(t *testing.T, f *os.File) bool {
	t.Helper()
	var st unix.Statfs_t
	require.NoError(t, unix.Fstatfs(int(f.Fd()), &st))
	if st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC {
		t.Logf("%s is on tmpfs: the cache-miss half needs a disk-backed TMPDIR", f.Name())
		return false
	}
	require.NoError(t, f.Sync())
	require.NoError(t, unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
	return true
}

// ReadCached by a lone task is served by the page cache directly (all but
// the reads the direct budget sends to the ring), with the bytes a ring
// read returns; tasks reading together go through the ring as one batch;
// a miss and an error take the ring.
func TestReadCached(t *testing.T) {
	requireRing(t)
	ex := newExec(t)
	f, data := cachedFile(t)
	fd := int(f.Fd())
	requireNowait(t, fd)
	const reads = 40
	var hits int
	require.NoError(t, runTask(t, ex, func(t *T) error {
		before := ringOf(t.ex).Counters().CacheHits
		buf := make([]byte, 4096)
		for i := range reads {
			off := int64(i%15) * 4096
			n, err := t.ReadCached(fd, buf, off)
			if err != nil || n != len(buf) || !bytes.Equal(buf, data[off:off+4096]) {
				return sprintErr(sprintf("read %d", i), n, err)
			}
		}
		// At end of file: short, then 0.
		n, err := t.ReadCached(fd, buf, int64(len(data)-100))
		if err != nil || n != 100 || !bytes.Equal(buf[:100], data[len(data)-100:]) {
			return sprintErr("tail", n, err)
		}
		if n, err = t.ReadCached(fd, buf, int64(len(data))); err != nil || n != 0 {
			return sprintErr("eof", n, err)
		}
		hits = ringOf(t.ex).Counters().CacheHits - before
		return nil
	}))
	require.Greater(t, hits, reads-5, "a lone task's cached reads skip the ring")
	require.Less(t, hits, reads+2, "every ring.DirectBudget-th read goes through the ring")

	// Eight tasks at once: each read is queued with the others' (nothing
	// is alone), so all go through the ring, in one submit.
	require.NoError(t, runTask(t, ex, func(t *T) error {
		before := ringOf(t.ex).Counters().CacheHits
		hs := make([]*Handle[int], 8)
		for i := range hs {
			hs[i] = Spawn(t, func(t *T) (int, error) {
				buf := make([]byte, 4096)
				n, err := t.ReadCached(fd, buf, int64(i)*4096)
				if err == nil && !bytes.Equal(buf, data[i*4096:(i+1)*4096]) {
					return n, sprintErr("batched bytes", n, err)
				}
				return n, err
			})
		}
		for _, h := range hs {
			if n, err := h.Join(t); err != nil || n != 4096 {
				return sprintErr("join", n, err)
			}
		}
		if d := ringOf(t.ex).Counters().CacheHits - before; d != 0 {
			return sprintErr("batched reads served directly", d, nil)
		}
		return nil
	}))

	err := runTask(t, ex, func(t *T) error {
		_, err := t.ReadCached(1<<20, make([]byte, 8), 0)
		return err
	})
	var oe *OpError
	require.ErrorAs(t, err, &oe, "errors are the ring's")
	require.ErrorIs(t, err, unix.EBADF)
	err = runTask(t, ex, func(t *T) error {
		_, err := t.ReadCached(-1, make([]byte, 8), 0)
		return err
	})
	var ae *ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "ReadCached", ae.Func)

	// A read that would wait (an empty pipe: EAGAIN) goes through the ring
	// and completes when data comes.
	pr, pw := pipe(t)
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = unix.Write(pw, []byte("late"))
	}()
	got := make([]byte, 8)
	require.NoError(t, runTask(t, ex, func(t *T) error {
		n, err := t.ReadCached(pr, got, CurrentPos)
		got = got[:n]
		return err
	}))
	require.Equal(t, "late", string(got))

	// Evicted: a miss is read through the ring (or, when the readahead the
	// miss started is already done, directly) — the bytes are right.
	if !evict(t, f) {
		return
	}
	require.NoError(t, runTask(t, ex, func(t *T) error {
		buf := make([]byte, 4096)
		n, err := t.ReadCached(fd, buf, 32768)
		if err != nil || n != 4096 || !bytes.Equal(buf, data[32768:32768+4096]) {
			return sprintErr("miss", n, err)
		}
		return nil
	}))
}
